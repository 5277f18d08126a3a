import type { Request } from 'express';
import { AppError, badRequest, ErrorCode } from '../src/errors';
import type { PassengerListQuery } from '../src/graphql/generated/operations';
import { writePassengerPaxlst, type PaxlstParties } from '../src/passengers/export/passenger-paxlst.writer';
import { writePassengerCsv } from '../src/passengers/export/passenger-csv.writer';
import { writePassengerXlsx } from '../src/passengers/export/passenger-xlsx.writer';
import type { ExportPassenger } from '../src/passengers/export/export-columns';
import { EXPORT_FORMAT_NAMES, EXPORT_FORMATS, exportFilename, isExportFormat, needsFlight, type ExportFormat } from '../src/passengers/export/export-format';
import { readIdParameter, readQueryParameters } from './query';
import { authenticationRequired, Scope } from '../src/auth';
import type { Principal } from '../src/auth/principal';
import type { Config } from '../src/config';
import { downloadLinkKey, LINK_PARAMETERS, verifyDownload } from '../src/passengers/export/download-link';
import type { PdfRenders } from '../src/passengers/export/pdf-renders';
import type { Representation } from './route';

export { needsFlight };

const offered = () => EXPORT_FORMAT_NAMES.map((name) => `${EXPORT_FORMATS[name].mediaType} (format=${name})`).join(', ');

/**
 * The representation a GET of a passenger list asks for: `?format=` when given (a link can ask
 * for a file whatever the browser sends as Accept), else the best match of Accept, JSON when Accept
 * is absent or allows anything. An unknown format is a 400, an Accept nothing matches a 406; both
 * list what is offered. Decided before the list is read.
 */
export function chooseExportFormat(req: Request): ExportFormat {
  const signed = (req.query as Record<string, unknown>).signature !== undefined;
  const { format } = readQueryParameters(req, signed ? ['format', ...LINK_PARAMETERS] : ['format']);
  if (format !== undefined) {
    if (!isExportFormat(format)) {
      throw badRequest(`query parameter format must be one of ${EXPORT_FORMAT_NAMES.join(', ')}, got "${format}"`, [
        { field: 'format', message: `expected one of ${EXPORT_FORMAT_NAMES.join(', ')}` },
      ]);
    }
    return format;
  }
  const mediaType = req.accepts(EXPORT_FORMAT_NAMES.map((name) => EXPORT_FORMATS[name].mediaType));
  const chosen = EXPORT_FORMAT_NAMES.find((name) => EXPORT_FORMATS[name].mediaType === mediaType);
  if (!chosen) {
    throw new AppError(ErrorCode.NOT_ACCEPTABLE, `No representation matches Accept: ${req.get('Accept')}; offered: ${offered()}`, {
      details: [{ field: 'Accept', message: `expected one of ${EXPORT_FORMAT_NAMES.map((name) => EXPORT_FORMATS[name].mediaType).join(', ')}` }],
    });
  }
  return chosen;
}

/**
 * The caller a signed download link names (see passengerListDownloadUrl), with only the scopes its
 * format needs; undefined without a signature; 401 naming the reason for a bad or expired link.
 */
export function signedLinkPrincipal(req: Request, config: Config): Principal | undefined {
  if ((req.query as Record<string, unknown>).signature === undefined) return undefined;
  const key = downloadLinkKey({ exportLinkSecret: config.exportLinkSecret, jwtSecret: config.auth.jwtSecret });
  if (!key) throw authenticationRequired('Download links are not enabled on this service: send a bearer token');
  const flightId = readIdParameter(req, 'flight_id');
  const query = readQueryParameters(req, ['format', ...LINK_PARAMETERS]);
  const result = verifyDownload(flightId, query, key, Math.floor(Date.now() / 1000));
  if (!result.ok) throw authenticationRequired(`Download link refused: ${result.reason}`);
  const format = result.grant.format;
  const scopes = isExportFormat(format) && needsFlight(format) ? [Scope.PassengersRead, Scope.TimelineRead] : [Scope.PassengersRead];
  return { subject: result.grant.subject, scopes: new Set(scopes) };
}

/** A list's ETag: its version, and for a file also the format (the representations differ, so must their validators). */
export const exportETag = (version: number, format: ExportFormat) => (format === 'json' ? `"${version}"` : `"${version}-${format}"`);

/** What a file is made of: the list, and for a manifest its flight and who operates it. */
export interface ExportSource {
  list: { flightId: number; version: number; passengers: readonly ExportPassenger[] };
  flight?: PassengerListQuery['flight'];
  operator: string | null;
  paxlst: PaxlstParties | null;
  producedAt: Date;
  /** Aborted when the request ends (its client went away): a render waiting for its turn or under way stops. */
  ended?: AbortSignal;
  /** Where a PDF manifest is rendered, in turns (PDF_RENDERS_MAX, PDF_RENDERS_QUEUE). */
  pdfRenders: PdfRenders;
}

const WRITERS: Record<Exclude<ExportFormat, 'json'>, (source: ExportSource) => Buffer | Promise<Buffer>> = {
  xlsx: ({ list, ended }) => writePassengerXlsx(list.passengers, ended),
  csv: ({ list }) => writePassengerCsv(list.passengers),
  pdf: ({ list, flight, operator, producedAt, ended, pdfRenders }) => {
    if (!flight) throw new Error('the manifest needs the flight: run the operation with withFlight');
    const manifest = {
      flight: {
        flightId: list.flightId,
        flightNumber: flight.flightNumber,
        registration: flight.resource?.registration ?? null,
        aircraftType: flight.resource?.title ?? null,
        operator,
        departure: flight.departure,
        arrival: flight.arrival,
      },
      version: list.version,
      producedAt,
      passengers: list.passengers,
    };
    return pdfRenders.render(manifest, ended);
  },
  paxlst: ({ list, flight, paxlst, producedAt }) => {
    if (!flight) throw new Error('PAXLST needs the flight: run the operation with withFlight');
    if (!paxlst) {
      throw new AppError(ErrorCode.UNPROCESSABLE, 'PAXLST is not configured on this service: set PAXLST_SENDER_ID, PAXLST_RECIPIENT_ID and PAXLST_REPORTING_PARTY', {
        details: [{ field: 'format', message: 'paxlst needs PAXLST_SENDER_ID, PAXLST_RECIPIENT_ID and PAXLST_REPORTING_PARTY configured' }],
      });
    }
    return writePassengerPaxlst({ parties: paxlst, flightNumber: flight.flightNumber, departure: flight.departure, arrival: flight.arrival, producedAt, passengers: list.passengers });
  },
};


/** The file of a list in a format other than JSON, named after the flight and the list's version. */
export async function exportRepresentation(format: Exclude<ExportFormat, 'json'>, source: ExportSource): Promise<Representation> {
  const bytes = await WRITERS[format](source);
  const { mediaType } = EXPORT_FORMATS[format];
  return {
    contentType: format === 'csv' ? `${mediaType}; charset=utf-8; header=present` : mediaType,
    bytes,
    headers: { 'Content-Disposition': `attachment; filename="${exportFilename(source.list.flightId, source.list.version, format)}"` },
  };
}

/**
 * A file over RESPONSE_MAX_BYTES: 413 naming the format, its size and the setting. Checked before
 * the export is recorded, so a file that is not sent is not in the export history. No format has
 * a limit of its own a list can reach: a list holds at most 5,000 passengers
 * (PASSENGER_LIST_MAX_PASSENGERS), an xlsx sheet 1,048,575 data rows, a PAXLST message 99,999
 * passengers (segment group 4 of D.05B); the byte cap is the one limit in force.
 */
export function exportTooLarge(format: ExportFormat, bytes: number, maxBytes: number): AppError {
  return new AppError(
    ErrorCode.RESPONSE_TOO_LARGE,
    `The ${format} file of this list would be ${bytes} bytes, over the limit of ${maxBytes} (RESPONSE_MAX_BYTES): nothing was sent or recorded; ask for a smaller format (csv and paxlst are the most compact) or raise RESPONSE_MAX_BYTES`,
    { details: [{ field: 'format', message: `the ${format} file is ${bytes} bytes, over RESPONSE_MAX_BYTES ${maxBytes}`, bytes, maxBytes }] },
  );
}
