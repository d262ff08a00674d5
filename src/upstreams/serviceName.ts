/** The two upstream services, as they are named in errors (`extensions.upstream.service`), logs and metrics. */
export type ServiceName = 'reservation' | 'pos';
