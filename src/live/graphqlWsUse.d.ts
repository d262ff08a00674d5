/** graphql-ws publishes `graphql-ws/use/ws` through package exports only, which `moduleResolution: node10` does not read. */
declare module 'graphql-ws/use/ws' {
  export { useServer } from 'graphql-ws/dist/use/ws';
}
