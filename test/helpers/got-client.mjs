import { Buffer } from 'node:buffer';
import process from 'node:process';
import got from 'got';

/**
 * POSTs with got, which ships as ESM only and so runs in a process of its own (jest runs the tests
 * as CommonJS): `node got-client.mjs '{"url", "headers", "streamed", "tries"}'` with the body on
 * stdin. A streamed body goes out as it comes (chunked, once); else it is read whole first and
 * sent `tries` times, one request after the other, with its Content-Length. Prints what the client
 * saw each time, as a JSON array of `{"status", "text"}` or `{"error"}`.
 */

const { url, headers, streamed, tries = 1 } = JSON.parse(process.argv[2]);

async function wholeStdin() {
  const chunks = [];
  for await (const chunk of process.stdin) chunks.push(chunk);
  return Buffer.concat(chunks);
}

const body = streamed ? process.stdin : await wholeStdin();
const outcomes = [];
for (let i = 0; i < (streamed ? 1 : tries); i += 1) {
  try {
    const response = await got.post(url, { headers, body, throwHttpErrors: false, retry: { limit: 0 } });
    outcomes.push({ status: response.statusCode, text: response.body });
  } catch (error) {
    outcomes.push({ error: `${error.code ?? error.name}: ${error.message}` });
  }
}
process.stdout.write(JSON.stringify(outcomes));
