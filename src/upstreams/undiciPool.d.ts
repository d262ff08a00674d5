/**
 * undici's `Pool` module on its own. `require('undici')` loads all of undici (fetch, WebSocket, caches, HTTP/2, …: 110
 * modules, about 10 MB of RSS per process); the gateway uses only the pool, which loads 22. The path is undici's own
 * file (the package has no exports map), pinned by package-lock.json: if a version moves it, the gateway fails at start.
 */
declare module 'undici/lib/dispatcher/pool' {
  import type { Pool } from 'undici';
  const PoolOfUndici: typeof Pool;
  export = PoolOfUndici;
}
