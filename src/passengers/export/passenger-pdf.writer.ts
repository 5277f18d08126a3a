import { setImmediate as nextTurn } from 'node:timers/promises';
import PDFDocument from 'pdfkit';
import { clientGone } from '../../shared/read-stream';
import type { ExportPassenger } from './export-columns';

/**
 * DejaVu Sans, read from the installed npm package (nothing is fetched at run time): it covers
 * Latin, Latin Extended, Vietnamese, Greek and Cyrillic, every name the import accepts (Ł, ő, ß,
 * Nguyễn…). The built-in PDF fonts know only WinAnsi and would drop them.
 */
const FONT = require.resolve('dejavu-fonts-ttf/ttf/DejaVuSans.ttf');
const FONT_BOLD = require.resolve('dejavu-fonts-ttf/ttf/DejaVuSans-Bold.ttf');

export interface ManifestEndpoint {
  icao: string;
  localTime: string;
  airport?: { iata?: string | null; city?: string | null; timezone?: string | null } | null;
}

/** What heads a manifest: the flight, its aircraft and operator. */
export interface ManifestFlight {
  flightId: number;
  flightNumber: string;
  registration: string | null;
  aircraftType: string | null;
  operator: string | null;
  departure: ManifestEndpoint;
  arrival: ManifestEndpoint;
}

export interface ManifestInput {
  flight: ManifestFlight;
  version: number;
  producedAt: Date;
  passengers: readonly ExportPassenger[];
}

const COLUMNS: { heading: string; width: number; value(passenger: ExportPassenger, index: number): string }[] = [
  { heading: 'No.', width: 28, value: (_p, index) => String(index + 1) },
  { heading: 'Surname', width: 120, value: (p) => p.surname },
  { heading: 'Given names', width: 120, value: (p) => p.name },
  { heading: 'Sex', width: 28, value: (p) => p.gender },
  { heading: 'Date of birth', width: 68, value: (p) => p.date_born },
  { heading: 'Nationality', width: 58, value: (p) => p.nazionalita },
  { heading: 'Doc. type', width: 70, value: (p) => (p.typedoc === 'P' ? 'Passport' : p.typedoc === 'I' ? 'Identity card' : p.typedoc) },
  { heading: 'Doc. number', width: 90, value: (p) => p.numberdoc },
  { heading: 'Doc. expiry', width: 68, value: (p) => p.scadenza },
  { heading: 'Issuing state', width: 64, value: (p) => p.issuingstate },
  { heading: 'Infant', width: 40, value: (p) => (p.is_carring_infant ? 'yes' : 'no') },
];

const MARGIN = 36;
const ROW = 15;

const place = (endpoint: ManifestEndpoint) =>
  [endpoint.icao, endpoint.airport?.iata, endpoint.airport?.city].filter(Boolean).join(' / ') + `, ${endpoint.localTime} local${endpoint.airport?.timezone ? ` (${endpoint.airport.timezone})` : ''}`;

/**
 * Rows laid out between two turns of the event loop. pdfkit lays text out synchronously: 2,000 rows
 * of 11 cells in one go held the event loop 0.8 s (2 shared cores); 25 rows take a few ms.
 */
const ROWS_PER_TURN = 25;

/** Page footers drawn between two turns of the event loop. */
const FOOTERS_PER_TURN = 10;

/**
 * Waits for the event loop's next turn (setImmediate: pending I/O, other requests, go first), then
 * stops with clientGone() when `signal` has fired: nobody is waiting for the document any more.
 */
async function nextSlice(signal: AbortSignal | undefined): Promise<void> {
  await nextTurn();
  if (signal?.aborted) throw clientGone();
}

/**
 * A printable passenger manifest after ICAO Annex 9's form: operator, aircraft registration and
 * type, flight number, points and local times of embarkation and disembarkation, then one row per
 * passenger in list order; every page carries its number of the total, the list version and when
 * the document was produced (UTC). A4 landscape.
 *
 * Laid out a slice at a time (ROWS_PER_TURN rows, FOOTERS_PER_TURN footers, then the pages'
 * compression, then the fonts and the cross-reference table), with a turn of the event loop between
 * slices, so no render holds the event loop for long. The slices make the same calls in the same
 * order as one pass would: the bytes are the same. When `signal` fires (the client went away), the
 * render stops at the next slice and rejects with clientGone().
 */
export async function writePassengerPdf(input: ManifestInput, signal?: AbortSignal): Promise<Buffer> {
  const { flight } = input;
  const doc = new PDFDocument({ size: 'A4', layout: 'landscape', margin: MARGIN, bufferPages: true, info: { Title: `Passenger manifest ${flight.flightNumber}`, Creator: 'broker-flight-gateway' } });
  doc.registerFont('body', FONT);
  doc.registerFont('bold', FONT_BOLD);
  const chunks: Buffer[] = [];
  const done = new Promise<Buffer>((resolve, reject) => {
    doc.on('data', (chunk: Buffer) => chunks.push(chunk));
    doc.on('end', () => resolve(Buffer.concat(chunks)));
    doc.on('error', reject);
  });
  // A render stopped half-way never awaits it: an error of the abandoned document is nobody's.
  done.catch(() => undefined);

  const bottom = doc.page.height - MARGIN - 24;
  const tableHeader = (y: number) => {
    doc.font('bold').fontSize(8);
    let x = MARGIN;
    for (const column of COLUMNS) {
      doc.text(column.heading, x, y, { width: column.width - 4, lineBreak: false, ellipsis: true });
      x += column.width;
    }
    doc.moveTo(MARGIN, y + ROW - 3).lineTo(x, y + ROW - 3).lineWidth(0.5).stroke();
    return y + ROW;
  };

  doc.font('bold').fontSize(14).text('PASSENGER MANIFEST', MARGIN, MARGIN);
  doc.font('body').fontSize(9);
  const facts: [string, string][] = [
    ['Operator', flight.operator ?? 'not configured (MANIFEST_OPERATOR)'],
    ['Aircraft registration', flight.registration ?? 'unknown'],
    ['Aircraft type', flight.aircraftType ?? 'unknown'],
    ['Flight number', flight.flightNumber],
    ['Departure (embarkation)', place(flight.departure)],
    ['Arrival (disembarkation)', place(flight.arrival)],
    ['Passengers', String(input.passengers.length)],
  ];
  let y = MARGIN + 24;
  for (const [label, value] of facts) {
    doc.font('bold').text(`${label}:`, MARGIN, y, { width: 150, lineBreak: false });
    doc.font('body').text(value, MARGIN + 150, y, { width: 500, lineBreak: false, ellipsis: true });
    y += 13;
  }
  y = tableHeader(y + 10);
  doc.font('body').fontSize(8);
  for (let index = 0; index < input.passengers.length; index += 1) {
    // The first turn comes after the heading, whose first text opened (read and parsed) both fonts.
    if (index % ROWS_PER_TURN === 0) await nextSlice(signal);
    const passenger = input.passengers[index];
    if (y + ROW > bottom) {
      doc.addPage();
      y = tableHeader(MARGIN);
      doc.font('body').fontSize(8);
    }
    let x = MARGIN;
    for (const column of COLUMNS) {
      doc.text(column.value(passenger, index), x, y, { width: column.width - 4, lineBreak: false, ellipsis: true });
      x += column.width;
    }
    y += ROW;
  }
  if (input.passengers.length === 0) doc.text('No passengers on the list.', MARGIN, y);

  const range = doc.bufferedPageRange();
  const produced = input.producedAt.toISOString().replace(/\.\d{3}Z$/, 'Z');
  for (let page = range.start; page < range.start + range.count; page += 1) {
    if (page > range.start && (page - range.start) % FOOTERS_PER_TURN === 0) await nextSlice(signal);
    doc.switchToPage(page);
    const footer = `Flight ${flight.flightNumber} (id ${flight.flightId}) · list version ${input.version} · produced ${produced} · page ${page + 1} of ${range.count}`;
    // Below the bottom margin: a zero margin for the footer keeps pdfkit from starting a new page.
    doc.page.margins.bottom = 0;
    doc.font('body').fontSize(7).text(footer, MARGIN, doc.page.height - MARGIN, { width: doc.page.width - 2 * MARGIN, align: 'center', lineBreak: false });
  }
  // Ending the document compresses every page (zlib's deflateSync), then embeds the fonts' subsets:
  // the pages first, on a turn of their own (end() finds none left to compress), then the rest.
  await nextSlice(signal);
  doc.flushPages();
  await nextSlice(signal);
  doc.end();
  return done;
}
