import { performance } from 'node:perf_hooks';
import { AppError, ErrorCode } from '../../errors';
import { TurnGate, type TurnGateLimits } from '../../shared/turn-gate';
import { assertPrintable, writePassengerPdf, type ManifestInput } from './passenger-pdf.writer';

/** Seconds a refused export is told to wait: the render of a full list (2,000 passengers) takes about a second. */
const RETRY_AFTER_SECONDS = 1;

/** How a render that had its turn ended: its document made, or stopped part-way because its client went away. */
export type PdfRenderOutcome = 'rendered' | 'stopped';

/**
 * PDF manifests rendered in turns (PDF_RENDERS_MAX at once, PDF_RENDERS_QUEUE waiting, one more a
 * 503 with Retry-After). A render is laid out in slices with a turn of the event loop between them
 * (writePassengerPdf), so none holds the event loop for long; but each one in flight adds its slice
 * to every turn of the event loop, and holds its pages uncompressed until the document ends.
 * Renders share one thread either way, so in turns none finishes later than all at once would,
 * other requests wait a slice or two at most, and the memory is bounded. A render whose client goes away stops at its next
 * slice, or leaves the queue; the turn goes to the next one.
 */
export class PdfRenders {
  private readonly gate: TurnGate;

  constructor(
    limits: TurnGateLimits,
    /** Told how each render that had its turn ended, and how long it held the turn (the metrics). */
    private readonly onRender?: (outcome: PdfRenderOutcome, seconds: number) => void,
  ) {
    this.gate = new TurnGate(limits, queueFull);
  }

  /** Renders holding a turn, and renders waiting for one (the /metrics gauges). */
  stats(): { inFlight: number; waiting: number } {
    return this.gate.stats();
  }

  /**
   * The manifest's bytes once its turn came and it was laid out; rejects with clientGone() when
   * `ended` fires first. A manifest with text it cannot print is refused at once (422), without a turn.
   */
  async render(input: ManifestInput, ended?: AbortSignal): Promise<Buffer> {
    assertPrintable(input);
    const release = await this.gate.enter({ ended });
    const started = performance.now();
    try {
      const bytes = await writePassengerPdf(input, ended);
      this.onRender?.('rendered', (performance.now() - started) / 1000);
      return bytes;
    } catch (error) {
      if (ended?.aborted) this.onRender?.('stopped', (performance.now() - started) / 1000);
      throw error;
    } finally {
      release();
    }
  }
}

function queueFull({ maxInFlight, maxWaiting }: TurnGateLimits): AppError {
  return new AppError(
    ErrorCode.SERVICE_UNAVAILABLE,
    `Too many PDF manifests asked for at once: ${maxInFlight} being rendered (PDF_RENDERS_MAX) and ${maxWaiting} waiting (PDF_RENDERS_QUEUE); try again shortly`,
    { headers: { 'Retry-After': String(RETRY_AFTER_SECONDS) } },
  );
}
