export * from './codes';
export * from './UpstreamError';
export * from './InputError';
export * from './upstreamErrorCode';
export * from './inputNames';
