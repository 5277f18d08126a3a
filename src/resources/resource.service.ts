import { advanceSequence, nextSequence, type CounterModel } from '../db/counter.model';
import { isDuplicateKey, upsertWithRetry } from '../db/duplicate-key';
import { invalidInput, type ErrorDetail } from '../errors';
import { checkColour, checkText } from '../shared/codes';
import type { ResourceDocument, ResourceModel } from './resource.model';

/** A resource as the API shows it. */
export interface ResourceData {
  id: number;
  title: string;
  registration: string;
  backgroundColor: string;
  textColor: string;
  borderColor: string;
}

const PROJECTION = { _id: 0, resourceId: 1, title: 1, registration: 1, colours: 1 } as const;

export function toResourceData(doc: ResourceDocument): ResourceData {
  return {
    id: doc.resourceId,
    title: doc.title,
    registration: doc.registration,
    backgroundColor: doc.colours.background,
    textColor: doc.colours.text,
    borderColor: doc.colours.border,
  };
}

export class ResourceService {
  constructor(
    private readonly resources: ResourceModel,
    private readonly counters: CounterModel,
  ) {}

  async list(): Promise<ResourceData[]> {
    const docs = await this.resources.find({}, PROJECTION).sort({ resourceId: 1 }).lean<ResourceDocument[]>().exec();
    return docs.map(toResourceData);
  }

  async byIds(ids: readonly number[]): Promise<ResourceData[]> {
    const docs = await this.resources.find({ resourceId: { $in: [...new Set(ids)] } }, PROJECTION).lean<ResourceDocument[]>().exec();
    return docs.map(toResourceData);
  }

  async upsert(input: Omit<ResourceData, 'id'> & { id?: number | null }): Promise<ResourceData> {
    const problems: ErrorDetail[] = [];
    const fields = {
      title: checkText('title', input.title, problems),
      registration: checkText('registration', input.registration, problems, 12).toUpperCase(),
      colours: {
        background: checkColour('backgroundColor', input.backgroundColor, problems),
        text: checkColour('textColor', input.textColor, problems),
        border: checkColour('borderColor', input.borderColor, problems),
      },
    };
    if (input.id != null && (!Number.isInteger(input.id) || input.id < 1)) {
      problems.push({ field: 'id', message: 'id must be a positive integer, or omitted to create a resource' });
    }
    if (problems.length) throw invalidInput(`Invalid resource: ${problems.map((p) => p.message).join('; ')}`, problems);

    if (input.id == null) return toResourceData({ resourceId: await this.createWithNextId(fields), ...fields });
    const resourceId = input.id;
    await upsertWithRetry(() => this.resources.updateOne({ resourceId }, { $set: fields }, { upsert: true }).exec());
    // An id chosen by the client must never be handed out again by the sequence.
    await advanceSequence(this.counters, 'resource', resourceId);
    return toResourceData({ resourceId, ...fields });
  }

  /** A new resource with the next free id; an id a client already took explicitly is skipped. */
  private async createWithNextId(fields: Omit<ResourceDocument, 'resourceId'>): Promise<number> {
    for (;;) {
      const resourceId = await nextSequence(this.counters, 'resource');
      try {
        await this.resources.create({ resourceId, ...fields });
        return resourceId;
      } catch (error) {
        if (!isDuplicateKey(error)) throw error;
      }
    }
  }
}
