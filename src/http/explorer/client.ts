/**
 * Runs in the browser, kept as text so `tsx` and `dist/` serve the same bytes (plain ES2017, no DOM types, no build).
 * Tries Apollo Sandbox, and when its script cannot load within `sandboxTimeoutMs` renders GraphiQL from /explorer/.
 * Neither sends telemetry: Sandbox runs with `runTelemetry: false`, and the page's CSP allows no other host.
 */
export const BOOT_SCRIPT = String.raw`'use strict';
(function () {
  var config = JSON.parse(document.getElementById('explorer-config').textContent);
  var target = document.getElementById('explorer');
  var settled = false;

  function shown(name) {
    settled = true;
    document.body.setAttribute('data-explorer', name);
    document.getElementById('explorer-name').textContent = name === 'sandbox' ? 'Apollo Sandbox' : 'GraphiQL (served by the gateway)';
    if (name === 'graphiql' && config.mode === 'auto') document.getElementById('explorer-switch').hidden = true;
  }

  function loadScript(src, timeoutMs) {
    return new Promise(function (resolve, reject) {
      var script = document.createElement('script');
      var timer = timeoutMs ? setTimeout(function () { reject(new Error('timed out: ' + src)); }, timeoutMs) : undefined;
      script.src = src;
      script.onload = function () { clearTimeout(timer); resolve(); };
      script.onerror = function () { clearTimeout(timer); reject(new Error('could not load ' + src)); };
      document.head.appendChild(script);
    });
  }

  function sandbox() {
    return loadScript(config.sandboxScriptUrl, config.sandboxTimeoutMs).then(function () {
      if (settled) return;
      if (typeof window.EmbeddedSandbox !== 'function') throw new Error('Apollo Sandbox script without EmbeddedSandbox');
      target.textContent = '';
      new window.EmbeddedSandbox({
        target: '#explorer',
        initialEndpoint: new URL(config.endpoint, location.href).href,
        initialState: { document: config.document, variables: config.variables, headers: config.headers, includeCookies: false },
        endpointIsEditable: false,
        hideCookieToggle: false,
        runTelemetry: false,
        allowDynamicStyles: false,
      });
      shown('sandbox');
    });
  }

  // In memory, not localStorage: every load starts from the chosen venue's headers, not another venue's session.
  function memoryStorage() {
    var items = new Map();
    return {
      getItem: function (key) { return items.has(key) ? items.get(key) : null; },
      setItem: function (key, value) { items.set(key, String(value)); },
      removeItem: function (key) { items.delete(key); },
      clear: function () { items.clear(); },
      get length() { return items.size; },
    };
  }

  function graphiql() {
    var style = document.createElement('link');
    style.rel = 'stylesheet';
    style.href = config.assets.style;
    document.head.appendChild(style);
    return config.assets.scripts.reduce(function (loaded, src) {
      return loaded.then(function () { return loadScript(src); });
    }, Promise.resolve()).then(function () {
      target.textContent = '';
      var GraphiQL = window.GraphiQL;
      // Subscriptions over graphql-ws on the same path; GraphiQL sends the headers as connection_init's payload.
      var endpoint = new URL(config.endpoint, location.href);
      var subscriptionUrl = (endpoint.protocol === 'https:' ? 'wss:' : 'ws:') + '//' + endpoint.host + endpoint.pathname;
      var element = window.React.createElement(GraphiQL, {
        fetcher: GraphiQL.createFetcher({ url: config.endpoint, subscriptionUrl: subscriptionUrl }),
        query: config.document,
        variables: JSON.stringify(config.variables, null, 2),
        headers: JSON.stringify(config.headers, null, 2),
        defaultEditorToolsVisibility: 'headers',
        shouldPersistHeaders: false,
        storage: memoryStorage(),
      });
      window.ReactDOM.createRoot(target).render(element);
      shown('graphiql');
    });
  }

  function failed(error) {
    target.textContent = 'The explorer could not start: ' + error.message;
  }

  if (config.mode === 'graphiql') graphiql().catch(failed);
  else sandbox().catch(function (error) {
    if (settled) return;
    console.info('Apollo Sandbox is unavailable (' + error.message + '); using GraphiQL');
    return graphiql();
  }).catch(failed);
})();
`;

export const EXPLORER_CSS = `
html, body { margin: 0; height: 100%; font-family: system-ui, sans-serif; font-size: 14px; }
body { display: flex; flex-direction: column; }
.bar { display: flex; flex-wrap: wrap; gap: 4px 16px; align-items: baseline; padding: 6px 12px; background: #1f2937; color: #f9fafb; }
.bar a { color: #93c5fd; }
.bar a[aria-current] { color: #f9fafb; font-weight: 600; text-decoration: none; }
.bar .note { color: #d1d5db; }
#explorer { flex: 1; min-height: 0; position: relative; }
#explorer > p { padding: 24px; }
#explorer iframe { width: 100%; height: 100%; border: none; }
.graphiql-container { height: 100%; }
`;
