import type { FileUpload } from 'graphql-upload-minimal';
import type { LimitsConfig } from '../config';
import type { CountryCode } from 'libphonenumber-js/max';
import { asAppError, badRequest, notFound, payloadTooLarge, truncateText, type AppError } from '../errors';
import type { FlightModel } from '../flights/flight.model';
import { readStreamWithLimit, uploadTooLarge } from '../shared/read-stream';
import { isPhoneRegion, type DateOrder } from './passenger.normalize';
import type { PassengerRecord } from './passenger.record';
import { parsePassengerSheet, type PassengerSheetOptions } from './sheet/parse-passenger-sheet';
import { passengerSheetAppError } from './sheet/sheet-app-error';

/**
 * A file as the transports hand it over: graphql-upload-minimal's FileUpload, plus the signal that
 * fires when the client who sent it goes away (the REST facade and the GraphQL multipart
 * middleware both attach it).
 */
export interface ReceivedFileUpload extends FileUpload {
  signal?: AbortSignal;
}

export interface PassengerUploadServiceDeps {
  flights: FlightModel;
  limits: LimitsConfig;
  /** The deployment's default region for phone numbers without a country code (PASSENGER_DEFAULT_PHONE_REGION). */
  defaultPhoneRegion?: CountryCode;
  /** Told how long each read of a file took and whether it gave records (metrics). */
  onRead?: (outcome: 'read' | 'refused', seconds: number) => void;
}

/** How a client asks a list to be read: each optional, the defaults otherwise. */
export interface PassengerUploadOptions {
  /** Rows hidden by hand or by a filter: SKIP (default) or IMPORT. */
  hiddenRows?: PassengerSheetOptions['hiddenRows'] | null;
  /** The order of text dates a column does not prove itself; default DMY. */
  dateOrder?: DateOrder | null;
  /** An ISO 3166-1 alpha-2 code; replaces the configured default region for this upload. */
  defaultPhoneRegion?: string | null;
}

/**
 * The upload: a spreadsheet (.xlsx, .ods or CSV, whatever type or name it was sent with) in, the
 * flight's passenger records out, as a preview. Nothing is stored:
 * the client edits the records and sends them with the push.
 */
export class PassengerUploadService {
  constructor(private readonly deps: PassengerUploadServiceDeps) {}

  async preview(flightId: number, file: Promise<FileUpload>, options: PassengerUploadOptions = {}): Promise<{ records: PassengerRecord[]; warnings: string[] }> {
    const defaultPhoneRegion = this.phoneRegion(options.defaultPhoneRegion);
    const dateOrder = options.dateOrder ?? undefined;
    const flight = await this.deps.flights.findOne({ flightId }).select('departure').lean().exec();
    if (!flight) throw notFound(`Flight ${flightId} does not exist`);
    const { bytes, signal, fileName } = await this.receive(file);
    const started = process.hrtime.bigint();
    const seconds = () => Number(process.hrtime.bigint() - started) / 1e9;
    try {
      const { records, warnings } = await parsePassengerSheet(bytes, {
        flightId,
        limits: this.deps.limits,
        signal,
        departure: flight.departure.at,
        hiddenRows: options.hiddenRows ?? undefined,
        defaultPhoneRegion,
        dateOrder,
        // The format is told from the bytes; the name only names a CSV file's one sheet in messages.
        fileName,
      });
      this.deps.onRead?.('read', seconds());
      return { records, warnings };
    } catch (error) {
      this.deps.onRead?.('refused', seconds());
      if (signal?.aborted) throw signal.reason;
      throw passengerSheetAppError(error);
    }
  }

  /** The requested default region, checked (a 400 naming the option), else the configured one. */
  private phoneRegion(requested: string | null | undefined): CountryCode | undefined {
    if (requested === null || requested === undefined) return this.deps.defaultPhoneRegion;
    const code = requested.trim().toUpperCase();
    if (isPhoneRegion(code)) return code;
    throw badRequest(`defaultPhoneRegion must be an ISO 3166-1 alpha-2 country code such as GB, US, DE or FR, got "${truncateText(requested, 20)}"`, [
      { field: 'defaultPhoneRegion', message: 'expected an ISO 3166-1 alpha-2 country code with a telephone numbering plan, e.g. GB' },
    ]);
  }

  /** The file's bytes, however its transfer failed turned into the error model. */
  private async receive(file: Promise<FileUpload>): Promise<{ bytes: Buffer; signal?: AbortSignal; fileName?: string }> {
    const maxBytes = this.deps.limits.uploadMaxBytes;
    try {
      const upload = (await file) as ReceivedFileUpload;
      upload.signal?.throwIfAborted();
      const bytes = await readStreamWithLimit(upload.createReadStream(), maxBytes, () => uploadTooLarge(maxBytes));
      return { bytes, signal: upload.signal, fileName: upload.filename || undefined };
    } catch (error) {
      throw this.transferError(error);
    }
  }

  /**
   * graphql-upload-minimal rejects the file, or fails its stream, with an HttpError: 413 for a file
   * past its size limit or a file too many, 499 when the client disconnected, 400 for a malformed
   * request; busboy's own errors ("Unexpected end of form") come bare. All are the client's doing.
   */
  private transferError(error: unknown): AppError {
    const known = asAppError(error);
    if (known) return known;
    const status = (error as { status?: number }).status;
    const reason = (error as Error).message ?? String(error);
    if (status === 413) return /^File truncated/.test(reason) ? uploadTooLarge(this.deps.limits.uploadMaxBytes) : payloadTooLarge(`The multipart request is over a limit: ${reason}`);
    return badRequest(`The file could not be received: ${reason}. Send the whole multipart body, ending with its closing boundary.`, [
      { field: 'file', message: 'the multipart body ended, or broke, before the file was complete' },
    ]);
  }
}
