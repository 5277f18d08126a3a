import { readFileSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import path from 'node:path';
import { build } from 'esbuild';
import type { Express } from 'express';
import type { GatewayApp } from '../../src/app';

const ROOT = path.resolve(__dirname, '../..');
const RECIPE_MARKER = '<!-- fullcalendar-recipe: test/browser/fullcalendar.test.ts runs this code as written -->';

/** docs/fullcalendar.md's recipe, exactly as a reader would paste it (the ```js block after the marker). */
export function readReadmeRecipe(): string {
  const readme = readFileSync(path.join(ROOT, 'docs/fullcalendar.md'), 'utf8');
  const at = readme.indexOf(RECIPE_MARKER);
  if (at < 0) throw new Error(`docs/fullcalendar.md has lost the marker ${RECIPE_MARKER}`);
  const block = /```js\n([\s\S]*?)\n```/.exec(readme.slice(at));
  if (!block) throw new Error('no ```js block follows the FullCalendar recipe marker in docs/fullcalendar.md');
  return block[1];
}

/**
 * Bundles the recipe with the FullCalendar packages from node_modules, as a front end's build
 * would, and exposes its export to the test page as `window.createBrokerCalendar`.
 */
export async function bundleRecipe(recipe: string): Promise<string> {
  const result = await build({
    stdin: { contents: `${recipe}\nwindow.createBrokerCalendar = createBrokerCalendar;\n`, resolveDir: ROOT, sourcefile: 'readme-recipe.js', loader: 'js' },
    bundle: true,
    write: false,
    format: 'iife',
    target: 'chrome120',
    logLevel: 'silent',
  });
  return result.outputFiles[0].text;
}

const PAGE = `<!doctype html>
<html lang="en">
<head><meta charset="utf-8"><title>Broker timeline</title></head>
<body style="margin:0"><div id="calendar" style="width:1400px"></div><script src="/test-page/calendar.js"></script></body>
</html>`;

/**
 * The page, its script and the real app behind one localhost origin, as a front end served
 * next to the API would be (no CORS involved); with `gateway`, its WebSocket subscriptions too.
 */
export async function servePage(
  app: Express,
  script: string,
  gateway?: Pick<GatewayApp, 'attachWebSockets' | 'closeWebSockets'>,
): Promise<{ origin: string; close(): Promise<void> }> {
  const server: Server = createServer((req, res) => {
    if (req.url === '/test-page/') {
      res.writeHead(200, { 'Content-Type': 'text/html; charset=utf-8' }).end(PAGE);
    } else if (req.url === '/test-page/calendar.js') {
      res.writeHead(200, { 'Content-Type': 'text/javascript; charset=utf-8' }).end(script);
    } else {
      app(req, res);
    }
  });
  gateway?.attachWebSockets(server);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    origin: `http://127.0.0.1:${port}`,
    close: async () => {
      await gateway?.closeWebSockets();
      await new Promise<void>((resolve, reject) => {
        server.closeAllConnections();
        server.close((error) => (error ? reject(error) : resolve()));
      });
    },
  };
}
