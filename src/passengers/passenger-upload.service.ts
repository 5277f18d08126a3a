import type { FileUpload } from 'graphql-upload-minimal';
import type { LimitsConfig } from '../config';
import { badRequest, notFound, payloadTooLarge } from '../errors';
import type { FlightModel } from '../flights/flight.model';
import { readStreamWithLimit } from '../shared/read-stream';
import type { PassengerRecord } from './passenger.record';
import { parsePassengerSheet } from './sheet/parse-passenger-sheet';
import { passengerSheetAppError } from './sheet/sheet-app-error';

export interface PassengerUploadServiceDeps {
  flights: FlightModel;
  limits: LimitsConfig;
}

/**
 * The upload: a spreadsheet in, the flight's passenger records out, as a preview. Nothing is stored:
 * the client edits the records and sends them with the push.
 */
export class PassengerUploadService {
  constructor(private readonly deps: PassengerUploadServiceDeps) {}

  async preview(flightId: number, file: Promise<FileUpload>): Promise<{ records: PassengerRecord[]; warnings: string[] }> {
    if (!(await this.deps.flights.exists({ flightId }).exec())) throw notFound(`Flight ${flightId} does not exist`);
    let upload: FileUpload;
    try {
      upload = await file;
    } catch (error) {
      // graphql-upload-minimal rejects the file promise for an over-size or interrupted upload.
      if ((error as { status?: number }).status === 413) throw payloadTooLarge(`The spreadsheet is larger than the limit of ${this.deps.limits.uploadMaxBytes} bytes`);
      throw badRequest(`The file could not be received: ${(error as Error).message}`);
    }
    const bytes = await readStreamWithLimit(upload.createReadStream(), this.deps.limits.uploadMaxBytes, 'The spreadsheet');
    try {
      const { records, warnings } = await parsePassengerSheet(bytes, { flightId, limits: this.deps.limits });
      return { records, warnings };
    } catch (error) {
      throw passengerSheetAppError(error);
    }
  }
}
