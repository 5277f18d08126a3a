import { existsSync, mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { DateTime } from 'luxon';
import { chromium, type BrowserContext, type Page } from 'playwright-core';
import request from 'supertest';
import { startTestApp, type TestApp } from '../helpers/test-app';
import { DeleteFlightDocument } from '../../src/graphql/generated/operations';
import { AIRPORTS, createFlight, createReferenceData, type FlightSpec } from '../helpers/timeline-fixtures';
import { bundleRecipe, readReadmeRecipe, servePage } from './fullcalendar-page';

const CHROMIUM = '/usr/bin/chromium';
const CHROMIUM_FLAGS = ['--headless', '--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run', '--disable-background-networking', '--disable-component-update', '--disable-sync'];
const ARTIFACTS = path.resolve(__dirname, '../../test-artifacts');
/** The browser's own zone, for timeZone 'local': neither UTC nor the service's Europe/Rome. */
const BROWSER_ZONE = 'America/New_York';
/** FullCalendar Premium's key for evaluation and non-commercial use (resource-timeline). */
const SCHEDULER_LICENSE_KEY = 'CC-Attribution-NonCommercial-NoDerivatives';
const INITIAL_DATE = '2026-06-10';

const haveChromium = existsSync(CHROMIUM);
if (!haveChromium) console.warn(`SKIPPED test/browser/fullcalendar.test.ts: ${CHROMIUM} is missing (install it with: apt-get install -y chromium)`);
const describeInChromium = haveChromium ? describe : describe.skip;

// UTC instants chosen so that which flights a week holds depends on the zone (see each note).
const FLIGHTS: (FlightSpec & { flightNumber: string })[] = [
  // Westbound, four hours: airport-local ends would draw it two hours long.
  { flightNumber: 'IFL401', resourceId: 2, from: 'LGAV', to: 'LPPT', departureAt: '2026-06-10T06:00:00Z', arrivalAt: '2026-06-10T10:00:00Z' },
  { flightNumber: 'IFL402', resourceId: 1, from: 'LPPT', to: 'LGAV', departureAt: '2026-06-09T08:00:00Z', arrivalAt: '2026-06-09T12:00:00Z' },
  // Crosses midnight in UTC, not in New York or Kolkata.
  { flightNumber: 'IFL403', resourceId: 1, from: 'LIRF', to: 'LPPT', departureAt: '2026-06-11T21:30:00Z', arrivalAt: '2026-06-12T01:30:00Z' },
  // Ends at 00:00 on Sunday the 7th in New York: outside that week there, inside it in UTC and Kolkata.
  { flightNumber: 'IFL404', resourceId: 2, from: 'LIRF', to: 'LIML', departureAt: '2026-06-07T02:00:00Z', arrivalAt: '2026-06-07T04:00:00Z' },
  // Sunday the 14th in Kolkata: outside that week there.
  { flightNumber: 'IFL405', resourceId: 1, from: 'LIML', to: 'LIRF', departureAt: '2026-06-13T20:00:00Z', arrivalAt: '2026-06-13T22:00:00Z' },
  // Only in the month.
  { flightNumber: 'IFL406', resourceId: 2, from: 'LIRF', to: 'LGAV', departureAt: '2026-06-20T09:00:00Z', arrivalAt: '2026-06-20T11:00:00Z' },
];

/** Visible ranges of the recipe's two views around INITIAL_DATE (weeks start on Sunday), as wall-clock dates. */
const VIEWS = {
  resourceTimelineWeek: { from: '2026-06-07', to: '2026-06-14' },
  dayGridMonth: { from: '2026-05-31', to: '2026-07-12' },
} as const;
type ViewName = keyof typeof VIEWS;

interface Rect {
  left: number;
  right: number;
  top: number;
  bottom: number;
}
interface RenderedEvent extends Rect {
  flightId: string | undefined;
  title: string;
  href: string | null;
  resourceId: string | null;
}
interface Rendered {
  events: RenderedEvent[];
  slots: (Rect & { date: string })[];
  resourceRows: number;
}
/**
 * The browser globals the functions run in the page use. The project's type-check has no DOM
 * library (it is server code), so they are declared here, as far as these functions need them.
 */
interface PageElement {
  dataset: Record<string, string | undefined>;
  textContent: string | null;
  getAttribute(name: string): string | null;
  getBoundingClientRect(): Rect;
  querySelector(selector: string): PageElement | null;
  closest(selector: string): PageElement | null;
}
interface CalendarPage {
  document: {
    getElementById(id: string): PageElement | null;
    querySelectorAll(selector: string): ArrayLike<PageElement> & Iterable<PageElement>;
  };
  getComputedStyle(element: PageElement): { marginLeft: string; marginRight: string };
  requestAnimationFrame(callback: () => void): number;
  /** The README recipe's export, put there by the bundle. */
  createBrokerCalendar(element: PageElement, options: Record<string, unknown>): unknown;
  calendarState: { busy: boolean; errors: string[] };
}

/** Waits for something the page's events record in this process (a liveness bound: jest's time-out). */
async function waitUntil(condition: () => boolean): Promise<void> {
  while (!condition()) await new Promise((resolve) => setTimeout(resolve, 20));
}

/** Minutes since the epoch of a wall-clock time, zone-free: FullCalendar's `data-date` and the expected times alike. */
const wallMinutes = (wallClock: string) => Date.parse(`${wallClock.slice(0, 16)}Z`) / 60_000;
const wallClockIn = (instant: string, zone: string) => DateTime.fromISO(instant, { zone }).toFormat("yyyy-MM-dd'T'HH:mm");

describeInChromium('the README FullCalendar recipe, bundled from npm and run in Chromium', () => {
  let testApp: TestApp;
  let token: string;
  let page: Page;
  let context: BrowserContext;
  let userDataDir: string;
  let closeServer: () => Promise<void>;
  let origin: string;
  const flightById = new Map<string, (typeof FLIGHTS)[number]>();
  const pageErrors: string[] = [];
  const eventFeedRequests: string[] = [];
  /** The subscribe messages the recipe's live updates sent (graphql-ws over WebSocket). */
  const liveSubscribes: string[] = [];

  beforeAll(async () => {
    testApp = await startTestApp('fullcalendar_browser');
    await createReferenceData(testApp);
    for (const flight of FLIGHTS) flightById.set(String(await createFlight(testApp, flight)), flight);
    token = await testApp.token(['timeline:read']);
    ({ origin, close: closeServer } = await servePage(testApp.app, await bundleRecipe(readReadmeRecipe()), testApp.gateway));
    mkdirSync(ARTIFACTS, { recursive: true });
    userDataDir = mkdtempSync(path.join(tmpdir(), 'broker-chromium-'));
    context = await chromium.launchPersistentContext(userDataDir, {
      executablePath: CHROMIUM,
      headless: true,
      args: CHROMIUM_FLAGS,
      timezoneId: BROWSER_ZONE,
      viewport: { width: 1400, height: 900 },
    });
    page = await context.newPage();
    // A broken recipe shows as a failed wait well within jest's 30 s, with Playwright's message.
    page.setDefaultTimeout(10_000);
    page.on('pageerror', (error) => pageErrors.push(error.message));
    page.on('request', (sent) => {
      if (sent.url().includes('/timeline/event?')) eventFeedRequests.push(sent.url());
    });
    page.on('websocket', (socket) =>
      socket.on('framesent', ({ payload }) => {
        if (String(payload).includes('"type":"subscribe"')) liveSubscribes.push(String(payload));
      }),
    );
  });

  afterAll(async () => {
    await context?.close();
    if (userDataDir) rmSync(userDataDir, { recursive: true, force: true });
    await closeServer?.();
    await testApp?.close();
  });

  afterEach(() => {
    // Uncaught errors in the page (the old recipe's `entries.map is not a function`) fail the test that caused them.
    const uncaught = pageErrors.splice(0);
    expect(uncaught).toEqual([]);
  });

  /** Opens the page, builds the recipe's calendar and waits until its feeds have answered and it has drawn them. */
  async function render(timeZone: string, initialView: ViewName, bearer: string): Promise<Rendered> {
    eventFeedRequests.length = 0;
    await page.goto(`${origin}/test-page/`);
    await page.evaluate(
      ({ bearer, timeZone, initialView, initialDate, licenceKey }) => {
        const page = globalThis as unknown as CalendarPage;
        page.calendarState = { busy: true, errors: [] };
        page.createBrokerCalendar(page.document.getElementById('calendar')!, {
          token: bearer,
          timeZone,
          initialView,
          initialDate,
          schedulerLicenseKey: licenceKey,
          onError: (error: Error) => page.calendarState.errors.push(error.message),
          // Test instrumentation only: which flight each drawn element is, and when fetching is over.
          eventDidMount: ({ el, event }: { el: PageElement; event: { id: string } }) => {
            el.dataset.flightId = event.id;
          },
          loading: (busy: boolean) => {
            page.calendarState.busy = busy;
          },
        });
      },
      { bearer, timeZone, initialView, initialDate: INITIAL_DATE, licenceKey: SCHEDULER_LICENSE_KEY },
    );
    await page.waitForFunction(() => !(globalThis as unknown as CalendarPage).calendarState.busy);
    // Drawing follows the data by a frame or two.
    await page.evaluate(() => {
      const { requestAnimationFrame } = globalThis as unknown as CalendarPage;
      return new Promise((resolve) => requestAnimationFrame(() => requestAnimationFrame(() => resolve(null))));
    });
    return page.evaluate(() => {
      const { document, getComputedStyle } = globalThis as unknown as CalendarPage;
      const box = (element: PageElement) => {
        const { left, right, top, bottom } = element.getBoundingClientRect();
        return { left, right, top, bottom };
      };
      return {
        events: [...document.querySelectorAll('.fc-event')].map((element) => {
          const outer = box(element);
          // A bar's margin is part of its span on the time axis.
          const style = getComputedStyle(element);
          return {
            ...outer,
            left: outer.left - parseFloat(style.marginLeft),
            right: outer.right + parseFloat(style.marginRight),
            flightId: element.dataset.flightId,
            title: element.querySelector('.fc-event-title')?.textContent ?? '',
            href: element.getAttribute('href'),
            resourceId: element.closest('[data-resource-id]')?.getAttribute('data-resource-id') ?? null,
          };
        }),
        slots: [...document.querySelectorAll('.fc-timeline-slots td[data-date], td.fc-daygrid-day[data-date]')].map((slot) => ({
          date: slot.getAttribute('data-date')!,
          ...box(slot),
        })),
        resourceRows: document.querySelectorAll('.fc-datagrid-cell[data-resource-id]').length,
      };
    });
  }

  /** The flights a view in `zone` should show, worked out from the fixtures alone. */
  function expectedFlightIds(view: ViewName, zone: string): string[] {
    const from = DateTime.fromISO(VIEWS[view].from, { zone });
    const to = DateTime.fromISO(VIEWS[view].to, { zone });
    return [...flightById]
      .filter(([, flight]) => DateTime.fromISO(flight.departureAt) < to && DateTime.fromISO(flight.arrivalAt) > from)
      .map(([id]) => id)
      .sort();
  }

  /** What the API answered for the request the calendar made (replayed), so the two can be compared. */
  async function apiEntriesFor(feedUrl: string): Promise<{ flight_id: number; start: string; end: string }[]> {
    const url = new URL(feedUrl);
    const answer = await request(testApp.app).get(`${url.pathname}${url.search}`).set('Authorization', `Bearer ${token}`).expect(200);
    return answer.body;
  }

  async function keepScreenshot(name: string) {
    await page.locator('.fc-event').first().scrollIntoViewIfNeeded();
    await page.screenshot({ path: path.join(ARTIFACTS, `fullcalendar-${name.replace(/[^A-Za-z0-9]+/g, '-')}.png`), fullPage: true });
  }

  describe.each([
    ['local', BROWSER_ZONE],
    ['UTC', 'UTC'],
    ['Asia/Kolkata', 'Asia/Kolkata'],
  ])("timeZone '%s'", (timeZone, zone) => {
    it('resource timeline: draws exactly the entries the API returns for the week, each bar from its start to its end, titled, not a link', async () => {
      const rendered = await render(timeZone, 'resourceTimelineWeek', token);
      await keepScreenshot(`timeline-${timeZone}`);

      expect(eventFeedRequests).toHaveLength(1);
      expect(new URL(eventFeedRequests[0]).searchParams.get('timeZone')).toBe(zone);
      const entries = await apiEntriesFor(eventFeedRequests[0]);
      const expected = expectedFlightIds('resourceTimelineWeek', zone);
      expect(entries.map((entry) => String(entry.flight_id)).sort()).toEqual(expected);
      expect(rendered.events).toHaveLength(entries.length);
      expect(rendered.events.map((event) => event.flightId).sort()).toEqual(expected);
      expect(rendered.resourceRows).toBe(2);

      const slot = rendered.slots[0];
      const minutesPerPixel = 60 / (slot.right - slot.left);
      // x on the time axis as a wall-clock minute, from the hour slots FullCalendar drew.
      const minuteAt = (x: number) => {
        const hour = rendered.slots.find((candidate) => x >= candidate.left && x < candidate.right) ?? rendered.slots[rendered.slots.length - 1];
        return wallMinutes(hour.date) + (x - hour.left) * minutesPerPixel;
      };
      for (const event of rendered.events) {
        const flight = flightById.get(event.flightId!)!;
        const entry = entries.find((candidate) => String(candidate.flight_id) === event.flightId)!;
        expect([entry.start, entry.end]).toEqual([wallClockIn(flight.departureAt, zone).replace('T', ' '), wallClockIn(flight.arrivalAt, zone).replace('T', ' ')]);
        expect(Math.abs(minuteAt(event.left) - wallMinutes(wallClockIn(flight.departureAt, zone)))).toBeLessThanOrEqual(2 * minutesPerPixel);
        expect(Math.abs(minuteAt(event.right) - wallMinutes(wallClockIn(flight.arrivalAt, zone)))).toBeLessThanOrEqual(2 * minutesPerPixel);
        expect(event.resourceId).toBe(String(flight.resourceId));
        expect(event.title).toBe(`${flight.flightNumber} ${AIRPORTS[flight.from].iata}–${AIRPORTS[flight.to].iata}`);
        expect(event.href).toBeNull();
      }
      expect(await page.evaluate(() => (globalThis as unknown as CalendarPage).calendarState.errors)).toEqual([]);
    });

    it('month view: draws exactly the entries the API returns for the month, each from its start day to its end day', async () => {
      const rendered = await render(timeZone, 'dayGridMonth', token);
      await keepScreenshot(`month-${timeZone}`);

      expect(eventFeedRequests).toHaveLength(1);
      const entries = await apiEntriesFor(eventFeedRequests[0]);
      const expected = expectedFlightIds('dayGridMonth', zone);
      expect(entries.map((entry) => String(entry.flight_id)).sort()).toEqual(expected);
      expect(rendered.events).toHaveLength(entries.length);
      expect(rendered.events.map((event) => event.flightId).sort()).toEqual(expected);

      const dayAt = (x: number, y: number) => rendered.slots.find((day) => x >= day.left && x < day.right && y >= day.top && y < day.bottom)?.date;
      for (const event of rendered.events) {
        const flight = flightById.get(event.flightId!)!;
        const middle = (event.top + event.bottom) / 2;
        // The end is exclusive: a flight landing at 00:00 ends on the day before.
        const lastDay = DateTime.fromISO(flight.arrivalAt, { zone }).minus({ milliseconds: 1 }).toISODate();
        expect([dayAt(event.left + 2, middle), dayAt(event.right - 2, middle)]).toEqual([DateTime.fromISO(flight.departureAt, { zone }).toISODate(), lastDay]);
        expect(event.title).toBe(`${flight.flightNumber} ${AIRPORTS[flight.from].iata}–${AIRPORTS[flight.to].iata}`);
        expect(event.href).toBeNull();
      }
    });
  });

  it('hands an error answer to onError with the service’s message and draws nothing, instead of throwing', async () => {
    const rendered = await render('UTC', 'resourceTimelineWeek', 'not-a-token');
    expect(rendered.events).toEqual([]);
    // Both feeds answered 401, and the live connection was closed with 4401 (it may come last).
    await page.waitForFunction(() => (globalThis as unknown as CalendarPage).calendarState.errors.length >= 3);
    const errors = await page.evaluate(() => (globalThis as unknown as CalendarPage).calendarState.errors);
    // Each failure reached onError as the service's own words.
    expect(errors.length).toBe(3);
    for (const message of errors) expect(message).toMatch(/token/i);
    expect(errors.filter((message) => message.startsWith('live updates stopped: Invalid bearer token'))).toHaveLength(1);
  });

  it('refetches the events when timelineChanged reports a flight entering, then leaving, the visible range', async () => {
    liveSubscribes.length = 0;
    const rendered = await render('UTC', 'resourceTimelineWeek', token);
    const shown = rendered.events.length;
    // The subscription for the week, in the calendar's zone, is on its way before anything changes.
    await waitUntil(() => liveSubscribes.length > 0);
    expect(JSON.parse(liveSubscribes[0]).payload.variables).toEqual({ start: '2026-06-07T00:00:00Z', end: '2026-06-14T00:00:00Z', timeZone: 'UTC' });
    const feedRequests = eventFeedRequests.length;

    const flightId = await createFlight(testApp, { flightNumber: 'IFL499', resourceId: 1, from: 'LIRF', to: 'LIML', departureAt: '2026-06-12T09:00:00Z', arrivalAt: '2026-06-12T11:00:00Z' });
    await page.waitForFunction((id) => (globalThis as unknown as CalendarPage).document.querySelectorAll(`.fc-event[data-flight-id="${id}"]`).length === 1, String(flightId));
    expect(eventFeedRequests.length).toBeGreaterThan(feedRequests);

    const { body } = await testApp.graphql(DeleteFlightDocument, { id: flightId });
    expect(body.errors).toBeUndefined();
    await page.waitForFunction((count) => (globalThis as unknown as CalendarPage).document.querySelectorAll('.fc-event').length === count, shown);
    expect(await page.evaluate(() => (globalThis as unknown as CalendarPage).calendarState.errors)).toEqual([]);
  });
});
