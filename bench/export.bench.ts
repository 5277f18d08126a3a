import os from 'node:os';
import { performance } from 'node:perf_hooks';
import type { ExportPassenger } from '../src/passengers/export/export-columns';
import { writePassengerCsv } from '../src/passengers/export/passenger-csv.writer';
import { writePassengerPaxlst } from '../src/passengers/export/passenger-paxlst.writer';
import { writePassengerPdf } from '../src/passengers/export/passenger-pdf.writer';
import { writePassengerXlsx } from '../src/passengers/export/passenger-xlsx.writer';

/**
 * Passenger list exports: how long each writer takes for a 2,000-passenger list (the upload's
 * default row limit) and how large the file is. The writers alone, without HTTP or the database:
 * the read of the list is the JSON route's own cost. Run: `npm run bench -- export`.
 */
const PASSENGERS = 2000;
const REPETITIONS = 5;

const SURNAMES = ['Wróbel', 'Nguyễn', 'Groß', 'Erdős', 'Rossi', 'Müller', 'O’Brien', 'Håkansson'];
const NAMES = ['Łukasz', 'Văn An', 'Jürgen', 'Pál', 'Maria Grazia', 'Zoë', 'Seán', 'Åsa'];

function list(): ExportPassenger[] {
  return Array.from({ length: PASSENGERS }, (_, index) => ({
    id: index + 1,
    surname: SURNAMES[index % SURNAMES.length].toUpperCase(),
    name: NAMES[(index * 3) % NAMES.length].toUpperCase(),
    luogonascita: 'IT',
    nazionalita: ['IT', 'PL', 'VN', 'DE'][index % 4],
    typedoc: index % 5 ? 'P' : 'I',
    numberdoc: `YA${1_000_000 + index}`,
    date_born: `19${50 + (index % 50)}-0${1 + (index % 9)}-1${index % 10}`,
    scadenza: '2031-05-16',
    issuingstate: 'IT',
    email: index % 2 ? `p${index}@example.com` : null,
    phone: index % 3 ? '+393331234567' : null,
    is_carring_infant: index % 40 === 0,
    gender: index % 2 ? 'F' : 'M',
    parent_id: index % 50 === 1 ? index : null,
  }));
}

export interface ExportBenchRow {
  format: string;
  medianMs: number;
  bytes: number;
}

const FLIGHT = {
  flightId: 1,
  flightNumber: 'IFL100',
  registration: '9H-VJA',
  aircraftType: 'Phenom 300E',
  operator: 'Aquila Jet Charter S.p.A.',
  departure: { icao: 'LPPT', localTime: '2026-12-15 08:00', airport: { iata: 'LIS', city: 'Lisbon', timezone: 'Europe/Lisbon' } },
  arrival: { icao: 'LIRF', localTime: '2026-12-15 12:00', airport: { iata: 'FCO', city: 'Rome', timezone: 'Europe/Rome' } },
};

export async function runExportBench(): Promise<ExportBenchRow[]> {
  const passengers = list();
  const writers: Record<string, () => Buffer | Promise<Buffer>> = {
    xlsx: () => writePassengerXlsx(passengers),
    csv: () => writePassengerCsv(passengers),
    pdf: () => writePassengerPdf({ flight: FLIGHT, version: 1, producedAt: new Date(), passengers }),
    paxlst: () =>
      writePassengerPaxlst({
        parties: { senderId: 'BROKERGW', recipientId: 'APISPT', reportingParty: 'AQUILA JET' },
        flightNumber: FLIGHT.flightNumber,
        departure: FLIGHT.departure,
        arrival: FLIGHT.arrival,
        producedAt: new Date(),
        passengers,
      }),
  };
  const rows: ExportBenchRow[] = [];
  for (const [format, write] of Object.entries(writers)) {
    await write(); // warm-up
    const times: number[] = [];
    let bytes = 0;
    for (let round = 0; round < REPETITIONS; round += 1) {
      const start = performance.now();
      bytes = (await write()).byteLength;
      times.push(performance.now() - start);
    }
    times.sort((a, b) => a - b);
    rows.push({ format, medianMs: times[Math.floor(times.length / 2)], bytes });
  }
  return rows;
}

export function formatExportBench(rows: ExportBenchRow[]): string {
  const load = os.loadavg()[0].toFixed(1);
  return [
    `${PASSENGERS} passengers, median of ${REPETITIONS} after a warm-up, load average ${load} on ${os.cpus().length} cores`,
    '',
    '| format | median | file size |',
    '|---|---|---|',
    ...rows.map((row) => `| ${row.format} | ${row.medianMs.toFixed(0)} ms | ${(row.bytes / 1024).toFixed(1)} KiB |`),
  ].join('\n');
}
