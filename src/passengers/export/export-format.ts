/** The representations of a flight's passenger list: what `?format=` names, its media type and file extension. */
export const EXPORT_FORMATS = {
  json: { mediaType: 'application/json', extension: 'json' },
  xlsx: { mediaType: 'application/vnd.openxmlformats-officedocument.spreadsheetml.sheet', extension: 'xlsx' },
  csv: { mediaType: 'text/csv', extension: 'csv' },
  pdf: { mediaType: 'application/pdf', extension: 'pdf' },
  paxlst: { mediaType: 'application/edifact', extension: 'edi' },
} as const;

export type ExportFormat = keyof typeof EXPORT_FORMATS;

/** The formats in the order they are offered (JSON first: it answers an Accept that allows anything, and no Accept). */
export const EXPORT_FORMAT_NAMES = Object.keys(EXPORT_FORMATS) as ExportFormat[];

export const isExportFormat = (name: string): name is ExportFormat => Object.hasOwn(EXPORT_FORMATS, name);

/** `flight-42-passengers-v3.xlsx`. */
export const exportFilename = (flightId: number, version: number, format: ExportFormat) =>
  `flight-${flightId}-passengers-v${version}.${EXPORT_FORMATS[format].extension}`;

/** Formats whose file heads with the flight (timeline data: the operation's withFlight, scope timeline:read). */
export const needsFlight = (format: ExportFormat) => format === 'pdf' || format === 'paxlst';
