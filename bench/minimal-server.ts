/**
 * The minimal server of issue 28: the irreducible work of the one-day REST timeline request
 * (`GET /api/broker/v0/calendar/timeline/event?start=…&end=…`), with nothing of the service in it
 * (it imports only node:http, jose and the mongodb driver). The small-requests benchmark
 * (bench/small-requests.bench.ts) measures the facade and GraphQL against it, on the same database.
 *
 * What it does is what the request cannot do without:
 * - node:http, keep-alive;
 * - the same bearer token verified with jose (HS256 on the same secret, `exp` and `sub` required)
 *   and its `timeline:read` scope checked;
 * - the same two database commands the service sends for the request, through the plain driver
 *   (logged from the service with the driver's command events: bench/README.md, "Small requests
 *   against a minimal server"): the flights of the range with their passenger counts joined, in the
 *   calendar's order, then, when there are flights, their airports and resources in one `$unionWith`;
 * - the same JSON bytes (the benchmark checks the md5 of both answers before measuring).
 *
 * What it leaves out, on purpose: the other routes, input errors beyond a 400, time zones other than
 * UTC (the benchmark's service runs with TIMEZONE=UTC), logging, metrics, limits.
 *
 * Environment: MONGODB_URI (with the database name), JWT_SECRET, PUBLIC_HOST. Prints
 * `READY {"port":…}` once it listens on a free port of 127.0.0.1.
 */
import { webcrypto } from 'node:crypto';
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import { jwtVerify } from 'jose';
import { MongoClient, type Document } from 'mongodb';

const PATH = '/api/broker/v0/calendar/timeline/event';
/** The longest flight the service assumes (MAX_FLIGHT_DURATION_MS): a flight that departed this long before the range may still be in the air. */
const MAX_FLIGHT_MS = 24 * 3600 * 1000;
const DAY_MS = 24 * 3600 * 1000;
const DATE_ONLY = /^(\d{4})-(\d{2})-(\d{2})$/;
const FALLBACK = { background: 'gray', text: 'white', border: 'gray' };

interface Colours {
  background: string;
  text: string;
  border: string;
}

interface Airport {
  icao: string;
  iata: string;
  country: string;
  city: string;
}

interface Flight {
  flightId: number;
  flightNumber: string;
  resourceId: number;
  departure: { icao: string; at: Date };
  arrival: { icao: string; at: Date };
  colours?: Colours;
  passengerList: Array<{ passengerCount: number }>;
}

const pad = (value: number) => (value < 10 ? `0${value}` : String(value));

/** `YYYY-MM-DD HH:MM` in UTC, the legacy timeline's format. */
function formatUtc(date: Date): string {
  return `${date.getUTCFullYear()}-${pad(date.getUTCMonth() + 1)}-${pad(date.getUTCDate())} ${pad(date.getUTCHours())}:${pad(date.getUTCMinutes())}`;
}

/** A `YYYY-MM-DD` day at UTC midnight, or undefined. */
function day(text: string | null): number | undefined {
  const match = text ? DATE_ONLY.exec(text) : null;
  if (!match) return undefined;
  const time = Date.UTC(Number(match[1]), Number(match[2]) - 1, Number(match[3]));
  return Number.isNaN(time) ? undefined : time;
}

function send(res: ServerResponse, status: number, body: string): void {
  res.writeHead(status, { 'content-type': 'application/json; charset=utf-8', 'content-length': Buffer.byteLength(body) });
  res.end(body);
}

async function main(): Promise<void> {
  const uri = process.env.MONGODB_URI;
  const secret = process.env.JWT_SECRET;
  const publicHost = process.env.PUBLIC_HOST ?? 'localhost';
  if (!uri || !secret) throw new Error('MONGODB_URI and JWT_SECRET are required');
  // Imported once, as the service does (jose would import raw bytes again on every verification).
  const key = await webcrypto.subtle.importKey('raw', new TextEncoder().encode(secret), { name: 'HMAC', hash: 'SHA-256' }, false, ['verify']);
  const client = await MongoClient.connect(uri);
  const db = client.db();
  const flights = db.collection('flights');
  const airports = db.collection('airports');

  async function timeline(req: IncomingMessage, res: ServerResponse, query: URLSearchParams): Promise<void> {
    const header = req.headers.authorization;
    const token = header?.startsWith('Bearer ') ? header.slice(7) : undefined;
    if (!token) return send(res, 401, '{"error":"token required"}');
    let scopes: string[];
    try {
      const { payload } = await jwtVerify(token, key, { algorithms: ['HS256'], requiredClaims: ['exp', 'sub'] });
      scopes = typeof payload.scope === 'string' ? payload.scope.split(' ') : [];
    } catch {
      return send(res, 401, '{"error":"invalid token"}');
    }
    if (!scopes.includes('timeline:read')) return send(res, 403, '{"error":"scope timeline:read required"}');
    const from = day(query.get('start'));
    const until = day(query.get('end'));
    if (from === undefined || until === undefined || from > until) return send(res, 400, '{"error":"start and end: YYYY-MM-DD"}');
    const to = until + DAY_MS;

    // Command 1: the flights with their passenger counts, as the service's aggregate reads them.
    const read = (await flights
      .aggregate(
        [
          { $match: { 'departure.at': { $gte: new Date(from - MAX_FLIGHT_MS), $lt: new Date(to) }, 'arrival.at': { $gt: new Date(from) } } },
          { $sort: { 'departure.at': 1, flightId: 1 } },
          { $project: { _id: 0, flightId: 1, flightNumber: 1, resourceId: 1, departure: 1, arrival: 1, colours: 1 } },
          { $lookup: { from: 'passenger_lists', localField: 'flightId', foreignField: 'flightId', pipeline: [{ $project: { _id: 0, passengerCount: 1 } }], as: 'passengerList' } },
        ],
        // One reply, as the service asks for it (no getMore).
        { batchSize: 1_000_000, maxTimeMS: 2250 },
      )
      .toArray()) as Flight[];
    if (read.length === 0) return send(res, 200, '[]');

    // Command 2: their airports and resources.
    const icaos = new Set<string>();
    const resourceIds = new Set<number>();
    for (const flight of read) {
      icaos.add(flight.departure.icao);
      icaos.add(flight.arrival.icao);
      resourceIds.add(flight.resourceId);
    }
    const references = await airports
      .aggregate(
        [
          { $match: { icao: { $in: [...icaos] } } },
          { $project: { _id: 0, icao: 1, iata: 1, city: 1, country: 1, countryTag: 1 } },
          { $unionWith: { coll: 'resources', pipeline: [{ $match: { resourceId: { $in: [...resourceIds] } } }, { $project: { _id: 0, resourceId: 1, colours: 1 } }] } },
        ],
        { batchSize: 1_000_000, maxTimeMS: 2250 },
      )
      .toArray();
    const airportByIcao = new Map<string, Airport>();
    const coloursByResource = new Map<number, Colours>();
    for (const reference of references as Document[]) {
      if ('icao' in reference) airportByIcao.set(reference.icao, { icao: reference.icao, iata: reference.iata, country: `${reference.country} (${reference.countryTag ?? ''})`, city: reference.city });
      else coloursByResource.set(reference.resourceId, reference.colours);
    }
    const airport = (icao: string): Airport => airportByIcao.get(icao) ?? { icao, iata: '', country: ' ()', city: '' };
    const entries = read.map((flight) => {
      const colours = coloursByResource.get(flight.resourceId) ?? FALLBACK;
      return {
        resourceId: flight.resourceId,
        flight_id: flight.flightId,
        flight_number: flight.flightNumber,
        backgroundColor: flight.colours?.background ?? colours.background,
        textColor: flight.colours?.text ?? colours.text,
        borderColor: flight.colours?.border ?? colours.border,
        start: formatUtc(flight.departure.at),
        end: formatUtc(flight.arrival.at),
        dep: airport(flight.departure.icao),
        arr: airport(flight.arrival.icao),
        url: publicHost,
        api_version: 'v0',
        passengers: flight.passengerList[0]?.passengerCount ?? 0,
      };
    });
    send(res, 200, JSON.stringify(entries));
  }

  const server = createServer({ keepAliveTimeout: 60_000 }, (req, res) => {
    const [path, search] = (req.url ?? '').split('?', 2);
    if (req.method !== 'GET' || path !== PATH) return send(res, 404, '{"error":"not found"}');
    timeline(req, res, new URLSearchParams(search ?? '')).catch((error: unknown) => {
      console.error(error);
      if (!res.headersSent) send(res, 500, '{"error":"internal"}');
    });
  });
  server.listen(0, '127.0.0.1', () => {
    const address = server.address();
    process.stdout.write(`READY ${JSON.stringify({ port: typeof address === 'object' && address ? address.port : 0 })}\n`);
  });
}

if (require.main === module) {
  main().catch((error: unknown) => {
    console.error(error);
    process.exit(1);
  });
}
