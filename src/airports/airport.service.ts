import { IANAZone } from 'luxon';
import { upsertWithRetry } from '../db/duplicate-key';
import { invalidInput, type ErrorDetail } from '../errors';
import { checkIata, checkIcao, checkText } from '../shared/codes';
import type { AirportDocument, AirportModel } from './airport.model';

export type AirportData = AirportDocument;

const PROJECTION = { _id: 0, icao: 1, iata: 1, city: 1, country: 1, countryTag: 1, timezone: 1 } as const;

export class AirportService {
  constructor(private readonly airports: AirportModel) {}

  /** Airports whose ICAO, IATA, city or country starts with `search` (all when empty). */
  async search(search?: string | null): Promise<AirportData[]> {
    const term = search?.trim();
    const filter = term
      ? { $or: ['icao', 'iata', 'city', 'country'].map((field) => ({ [field]: { $regex: `^${escapeRegex(term)}`, $options: 'i' } })) }
      : {};
    return this.airports.find(filter, PROJECTION).sort({ icao: 1 }).limit(500).lean<AirportData[]>().exec();
  }

  async byIcao(codes: readonly string[]): Promise<AirportData[]> {
    return this.airports.find({ icao: { $in: [...new Set(codes)] } }, PROJECTION).lean<AirportData[]>().exec();
  }

  async upsert(input: AirportData): Promise<AirportData> {
    const problems: ErrorDetail[] = [];
    const airport: AirportData = {
      icao: checkIcao('icao', input.icao, problems),
      iata: checkIata('iata', input.iata, problems),
      city: checkText('city', input.city, problems),
      country: checkText('country', input.country, problems),
      countryTag: input.countryTag.trim(),
      timezone: input.timezone.trim(),
    };
    if (airport.countryTag.length > 10 || /[()]/.test(airport.countryTag)) {
      problems.push({ field: 'countryTag', message: 'countryTag must be at most 10 characters without parentheses, e.g. IT (or empty)' });
    }
    if (!IANAZone.isValidZone(airport.timezone)) {
      problems.push({ field: 'timezone', message: `timezone must be an IANA time zone such as Europe/Rome, got "${input.timezone}"` });
    }
    if (problems.length) throw invalidInput(`Invalid airport: ${problems.map((p) => p.message).join('; ')}`, problems);
    await upsertWithRetry(() => this.airports.updateOne({ icao: airport.icao }, { $set: airport }, { upsert: true }).exec());
    return airport;
  }
}

export function escapeRegex(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
}
