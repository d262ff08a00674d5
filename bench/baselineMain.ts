import { createBaseline } from './baseline';

/** The baseline as a process of its own, like the gateway: env RESERVATION_BASE_URL, POS_BASE_URL, PORT. */
const baseline = createBaseline({ reservationUrl: required('RESERVATION_BASE_URL'), posUrl: required('POS_BASE_URL') });
baseline.server.listen(Number(process.env.PORT ?? 0), '127.0.0.1');
process.once('SIGTERM', () => void baseline.close().then(() => process.exit(0)));

function required(name: string): string {
  const value = process.env[name];
  if (!value) throw new Error(`${name} is required`);
  return value;
}
