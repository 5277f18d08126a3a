import { ALL_CHANGE_EVENT_TYPES, type ChangeEventType } from '../changes/change-event';
import { invalidInput, type ErrorDetail } from '../errors';
import { checkTarget, TargetRefusedError, urlProblem, type TargetPolicy } from './webhook-target';

/** Most flights one endpoint's filter may name. */
export const MAX_FILTER_FLIGHTS = 1000;
/** Longest description. */
export const MAX_DESCRIPTION_LENGTH = 500;
/** Longest a URL's host may take to resolve when an endpoint is created or changed. */
const RESOLVE_TIMEOUT_MS = 5000;

/** What a client sets on an endpoint; an absent field keeps its value (on update). */
export interface EndpointChanges {
  url?: string;
  /** null: every type. */
  eventTypes?: ChangeEventType[] | null;
  /** null: every flight. */
  flightIds?: number[] | null;
  description?: string | null;
  enabled?: boolean;
}

/** The checked and normalised fields (only those the client sent). */
export type CheckedEndpointChanges = Omit<EndpointChanges, 'eventTypes'> & { eventTypes?: ChangeEventType[] };

/**
 * Checks an endpoint's fields and throws one 400 naming each bad field. The URL is also resolved:
 * an address the operator did not allow is refused now, not at the first delivery (which checks
 * again, since DNS may answer differently later).
 */
export async function checkEndpointChanges(changes: EndpointChanges, policy: TargetPolicy): Promise<CheckedEndpointChanges> {
  const problems: ErrorDetail[] = [];
  const checked: CheckedEndpointChanges = {};
  if (changes.url !== undefined) {
    const url = changes.url.trim();
    const problem = urlProblem(url, policy);
    if (problem) {
      problems.push({ field: 'url', message: problem });
    } else {
      try {
        await checkTarget(new URL(url), policy, AbortSignal.timeout(RESOLVE_TIMEOUT_MS));
        checked.url = new URL(url).href;
      } catch (error) {
        if (!(error instanceof TargetRefusedError)) throw error;
        problems.push({ field: 'url', message: `url is refused: ${error.message}` });
      }
    }
  }
  if (changes.eventTypes !== undefined) {
    if (changes.eventTypes === null) checked.eventTypes = [...ALL_CHANGE_EVENT_TYPES];
    else if (changes.eventTypes.length === 0) problems.push({ field: 'eventTypes', message: 'eventTypes must name at least one event type; leave it out for all of them' });
    else checked.eventTypes = ALL_CHANGE_EVENT_TYPES.filter((type) => changes.eventTypes!.includes(type));
  }
  if (changes.flightIds !== undefined) {
    const ids = changes.flightIds;
    if (ids === null) checked.flightIds = null;
    else if (ids.length === 0) problems.push({ field: 'flightIds', message: 'flightIds must name at least one flight; null (or leaving it out on creation) means every flight' });
    else if (ids.length > MAX_FILTER_FLIGHTS) problems.push({ field: 'flightIds', message: `flightIds names ${ids.length} flights: at most ${MAX_FILTER_FLIGHTS}` });
    else if (ids.some((id) => !Number.isSafeInteger(id) || id < 1)) problems.push({ field: 'flightIds', message: 'flightIds must be positive flight ids' });
    else checked.flightIds = [...new Set(ids)].sort((a, b) => a - b);
  }
  if (changes.description !== undefined) {
    const description = changes.description?.trim() || null;
    if (description && description.length > MAX_DESCRIPTION_LENGTH) {
      problems.push({ field: 'description', message: `description is ${description.length} characters long: at most ${MAX_DESCRIPTION_LENGTH}` });
    }
    checked.description = description;
  }
  if (changes.enabled !== undefined) checked.enabled = changes.enabled;
  if (problems.length) throw invalidInput(`Invalid webhook endpoint: ${problems.map((problem) => problem.message).join('; ')}`, problems);
  return checked;
}
