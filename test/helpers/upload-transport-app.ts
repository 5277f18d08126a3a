import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { startTestApp, type TestApp } from './test-app';
import { createFlight, createReferenceData } from './timeline-fixtures';

/** The app listening on a port, an uploader's token, one flight, and every uncaught exception seen meanwhile. */
export interface UploadTransportApp {
  testApp: TestApp;
  server: Server;
  port: number;
  writer: string;
  flightId: number;
  /** Uncaught exceptions while the app ran: a transport test asserts it stays empty. */
  uncaught: unknown[];
  close(): Promise<void>;
}

/** HTTP_LINGER_MAX_BYTES of the transport tests: the most a refused body is read on after its answer. */
export const TRANSPORT_LINGER_MAX_BYTES = 1024 * 1024;

/** What the REST and GraphQL upload transport tests both start from, with UPLOAD_MAX_BYTES = `limit`. */
export async function startUploadTransportApp(name: string, limit: number): Promise<UploadTransportApp> {
  const testApp = await startTestApp(name, { UPLOAD_MAX_BYTES: String(limit), HTTP_LINGER_MAX_BYTES: String(TRANSPORT_LINGER_MAX_BYTES) });
  const writer = await testApp.token(['passengers:write']);
  await createReferenceData(testApp);
  const flightId = await createFlight(testApp, { resourceId: 1, from: 'LIRF', to: 'LGAV', departureAt: '2026-12-10T09:00:00Z', arrivalAt: '2026-12-10T11:30:00Z' });
  const server = testApp.app.listen(0, '127.0.0.1');
  await new Promise((resolve) => server.once('listening', resolve));
  const uncaught: unknown[] = [];
  const recordUncaught = (error: unknown) => uncaught.push(error);
  process.on('uncaughtException', recordUncaught);
  return {
    testApp,
    server,
    port: (server.address() as AddressInfo).port,
    writer,
    flightId,
    uncaught,
    async close() {
      process.off('uncaughtException', recordUncaught);
      await new Promise((resolve) => server.close(resolve));
      await testApp.close();
    },
  };
}
