import type { ClientRequest } from 'node:http';
import { holdRequest, type HeldRequest } from '../helpers/held-request';
import { PassengerListExportsDocument } from '../../src/graphql/generated/operations';
import { Metrics } from '../../src/metrics/metrics';
import { listen } from '../clients/listening-app';
import { passengerRecord } from '../helpers/passengers';
import { startTestApp, type TestApp } from '../helpers/test-app';
import { createFlight, createReferenceData } from '../helpers/timeline-fixtures';

/*
 * A PDF manifest of a full list (2,000 passengers) held the event loop 0.8 s when pdfkit laid it
 * out in one go, and 8 at once made /healthz wait 3 s. It is laid out in slices with a turn of the
 * event loop between them, renders take turns (PDF_RENDERS_MAX, PDF_RENDERS_QUEUE), and a render
 * whose client went away stops. Observed through /metrics: a render holds its turn exactly while it
 * is laid out (pdf_renders_in_flight), and each one that had its turn is counted by how it ended.
 */

const PASSENGERS = 2_000;

interface Gauges {
  inFlight: number;
  waiting: number;
  rendered: number;
  stopped: number;
}

describe('PDF manifests are rendered in slices and in turns (PDF_RENDERS_MAX, PDF_RENDERS_QUEUE)', () => {
  let testApp: TestApp;
  let server: { url: string; close(): Promise<void> };
  let flightId: number;
  let scrapeToken: string;
  const sent: ClientRequest[] = [];

  beforeAll(async () => {
    testApp = await startTestApp('passenger_pdf_turns', { PDF_RENDERS_MAX: '1', PDF_RENDERS_QUEUE: '1', RATE_LIMIT_PER_MINUTE: '0' }, { metrics: new Metrics() });
    await createReferenceData(testApp);
    flightId = await createFlight(testApp, { resourceId: 2, from: 'LPPT', to: 'LIRF', departureAt: '2026-12-15T08:00:00Z', arrivalAt: '2026-12-15T11:00:00Z' });
    const created = Array.from({ length: PASSENGERS }, (_, index) => passengerRecord(index + 1, { surname: `Passenger${index + 1}`, numberdoc: `YA${String(index).padStart(7, '0')}` }));
    const pushed = await fetchApp(`/api/broker/v0/flight/${flightId}/passenger`, await testApp.token(['passengers:write']), { method: 'POST', body: JSON.stringify({ created, modified: [], deleted: [] }) });
    expect(pushed.status).toBe(200);
    scrapeToken = await testApp.token(['metrics:read'], 'prometheus');
  });
  afterEach(async () => {
    for (const req of sent.splice(0)) req.destroy();
    await until((seen) => seen.inFlight === 0 && seen.waiting === 0, 'no render in flight or waiting');
  });
  afterAll(async () => {
    await server?.close();
    await testApp.close();
  });

  async function fetchApp(path: string, token: string, init: RequestInit = {}) {
    server ??= await listen(testApp.app);
    return fetch(`${server.url}${path}`, { ...init, headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' } });
  }

  /** GET of the manifest whose answer is read only when asked. */
  async function heldPdf(subject: string): Promise<HeldRequest> {
    server ??= await listen(testApp.app);
    const token = await testApp.token(['passengers:read', 'timeline:read'], subject);
    return holdRequest(`${server.url}/api/broker/v0/flight/${flightId}/passenger?format=pdf`, sent, { headers: { authorization: `Bearer ${token}` } });
  }

  async function gauges(): Promise<Gauges> {
    const text = await (await fetchApp('/metrics', scrapeToken)).text();
    const read = (pattern: string) => Number(new RegExp(`^${pattern} (\\S+)$`, 'm').exec(text)?.[1] ?? 0);
    return {
      inFlight: read('pdf_renders_in_flight'),
      waiting: read('pdf_renders_waiting'),
      rendered: read('passenger_pdf_render_duration_seconds_count\\{outcome="rendered"\\}'),
      stopped: read('passenger_pdf_render_duration_seconds_count\\{outcome="stopped"\\}'),
    };
  }

  /** Scrapes until the gauges satisfy `wanted`; after many scrapes without, fails saying what it saw. */
  async function until(wanted: (seen: Gauges) => boolean, what: string): Promise<Gauges> {
    let seen = await gauges();
    for (let scrape = 0; scrape < 3000 && !wanted(seen); scrape += 1) {
      await new Promise((resolve) => setTimeout(resolve, 20));
      seen = await gauges();
    }
    expect({ what, seen, holds: wanted(seen) }).toEqual({ what, seen, holds: true });
    return seen;
  }

  const exportSubjects = async () => (await testApp.graphql(PassengerListExportsDocument, { flightId })).body.data!.passengerListExports.map((entry) => entry.subject);

  it('answers other requests while a full list’s manifest is laid out, and the manifest is whole', async () => {
    const before = await gauges();
    const pdf = await heldPdf('slices');
    // Scrapes back to back until the manifest is answered: those that find its render holding its
    // turn were served between two of its slices (a render in one go would let none through).
    let servedDuringRender = 0;
    while (!pdf.answered()) {
      const seen = await gauges();
      if (seen.inFlight === 1) servedDuringRender += 1;
    }
    expect(servedDuringRender).toBeGreaterThan(0);

    const res = await pdf.head;
    expect(res.statusCode).toBe(200);
    expect(res.headers['content-type']).toBe('application/pdf');
    expect(res.headers.etag).toBe('"1-pdf"');
    expect(res.headers['content-disposition']).toBe(`attachment; filename="flight-${flightId}-passengers-v1.pdf"`);
    const bytes = await pdf.body();
    expect(bytes.subarray(0, 5).toString('latin1')).toBe('%PDF-');
    expect(bytes.subarray(-6).toString('latin1')).toBe('%%EOF\n');
    const after = await gauges();
    expect({ rendered: after.rendered - before.rendered, stopped: after.stopped - before.stopped }).toEqual({ rendered: 1, stopped: 0 });
  });

  it('renders one at a time here: the next waits its turn, one more is refused with 503 and Retry-After', async () => {
    const first = await heldPdf('first');
    await until((seen) => seen.inFlight === 1, 'the first manifest rendering');
    const second = await heldPdf('second');
    await until((seen) => seen.inFlight === 1 && seen.waiting === 1, 'the second manifest waiting');
    const refused = await heldPdf('third');
    const refusedHead = await refused.head;
    expect(refusedHead.statusCode).toBe(503);
    expect(refusedHead.headers['retry-after']).toBe('1');
    const refusal = JSON.parse((await refused.body()).toString('utf8')) as { error: { code: string; message: string } };
    expect(refusal.error.code).toBe('SERVICE_UNAVAILABLE');
    expect(refusal.error.message).toBe(
      'Too many PDF manifests asked for at once: 1 being rendered (PDF_RENDERS_MAX) and 1 waiting (PDF_RENDERS_QUEUE); try again shortly',
    );
    expect((await first.head).statusCode).toBe(200);
    expect((await second.head).statusCode).toBe(200);
    await Promise.all([first.body(), second.body()]);
  });

  it('stops a render whose client went away: nothing is recorded, and the next render gets the turn', async () => {
    const before = await gauges();
    const gone = await heldPdf('gone-reader');
    gone.head.catch(() => undefined);
    await until((seen) => seen.inFlight === 1, 'the manifest rendering');
    const next = await heldPdf('next-reader');
    await until((seen) => seen.waiting === 1, 'the next manifest waiting');
    gone.req.destroy();

    // The next one has its turn once the first released it, which it does once its render has ended.
    expect((await next.head).statusCode).toBe(200);
    await next.body();
    const after = await gauges();
    expect({ rendered: after.rendered - before.rendered, stopped: after.stopped - before.stopped }).toEqual({ rendered: 1, stopped: 1 });
    const subjects = await exportSubjects();
    expect(subjects).toContain('next-reader');
    expect(subjects).not.toContain('gone-reader');
  });

  it('lets a waiting render whose client went away leave the queue without rendering', async () => {
    const before = await gauges();
    const first = await heldPdf('first-in-line');
    await until((seen) => seen.inFlight === 1, 'the first manifest rendering');
    const gone = await heldPdf('gone-waiting');
    gone.head.catch(() => undefined);
    await until((seen) => seen.waiting === 1, 'the second manifest waiting');
    gone.req.destroy();
    await until((seen) => seen.waiting === 0, 'the queue emptied');
    expect((await first.head).statusCode).toBe(200);
    await first.body();
    const after = await gauges();
    expect({ rendered: after.rendered - before.rendered, stopped: after.stopped - before.stopped }).toEqual({ rendered: 1, stopped: 0 });
    expect(await exportSubjects()).not.toContain('gone-waiting');
  });
});
