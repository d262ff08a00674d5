import { createMercurius } from './mercurius';

/** The Mercurius reference as a process of its own, like the gateway: env RESERVATION_BASE_URL, POS_BASE_URL, PORT. */
async function main(): Promise<void> {
  const app = await createMercurius({ reservationUrl: required('RESERVATION_BASE_URL'), posUrl: required('POS_BASE_URL') });
  await app.listen({ port: Number(process.env.PORT ?? 0), host: '127.0.0.1' });
  process.once('SIGTERM', () => void app.close().then(() => process.exit(0)));
}

function required(name: string): string {
  const value = process.env[name];
  if (!value) throw new Error(`${name} is required`);
  return value;
}

main().catch((err: unknown) => {
  process.stderr.write(`mercurius reference failed: ${err instanceof Error ? err.message : String(err)}\n`);
  process.exit(1);
});
