/**
 * `npm run bench`: every benchmark, one after the other, printing medians. Not a test: nothing
 * here passes or fails on timings. The figures recorded with their machine and date are in
 * bench/README.md. `npm run bench -- engine timeline` runs only the named ones.
 */
import 'reflect-metadata';
import { formatAuthBench, runAuthBench } from './auth.bench';
import { formatEarlyAnswersBench, runEarlyAnswersBench } from './early-answers.bench';
import { formatEngineBench, runEngineBench } from './engine.bench';
import { formatExportBench, runExportBench } from './export.bench';
import { formatMetricsBench, runMetricsBench } from './metrics.bench';
import { formatPushBench, runPushBench } from './passenger-push.bench';
import { formatSheetBench, runSheetBench } from './sheet.bench';
import { formatSmallRequestsBench, runSmallRequestsBench } from './small-requests.bench';
import { formatSlowSubscribersBench, runSlowSubscribersBench } from './slow-subscribers.bench';
import { formatSubscriptionsBench, runSubscriptionsBench } from './subscriptions.bench';
import { formatTimelineBench, runTimelineBench } from './timeline.bench';
import { formatTimelineScaleBench, runTimelineScaleBench } from './timeline-scale.bench';
import { formatTracingBench, runTracingBench } from './tracing.bench';
import { formatWorstCaseBench, runWorstCaseBench } from './worst-case.bench';
import { formatWebhookBench, runWebhookBench } from './webhooks.bench';

const BENCHES: Record<string, () => Promise<string>> = {
  engine: async () => formatEngineBench(await runEngineBench()),
  timeline: async () => formatTimelineBench(await runTimelineBench()),
  small: async () => formatSmallRequestsBench(await runSmallRequestsBench()),
  'timeline-scale': async () => formatTimelineScaleBench(await runTimelineScaleBench()),
  auth: async () => formatAuthBench(await runAuthBench()),
  sheet: async () => formatSheetBench(await runSheetBench(), new Date().toISOString().slice(0, 10)),
  push: async () => formatPushBench(await runPushBench()),
  'worst-case': async () => formatWorstCaseBench(await runWorstCaseBench()),
  subscriptions: async () => formatSubscriptionsBench(await runSubscriptionsBench()),
  'slow-subscribers': async () => formatSlowSubscribersBench(await runSlowSubscribersBench()),
  webhooks: async () => formatWebhookBench(await runWebhookBench()),
  metrics: async () => formatMetricsBench(await runMetricsBench()),
  'early-answers': async () => formatEarlyAnswersBench(await runEarlyAnswersBench()),
  tracing: async () => formatTracingBench(await runTracingBench()),
  export: async () => formatExportBench(await runExportBench()),
};

async function main(): Promise<void> {
  const wanted = process.argv.slice(2);
  const unknown = wanted.filter((name) => !(name in BENCHES));
  if (unknown.length) {
    console.error(`unknown benchmark ${unknown.join(', ')}: choose from ${Object.keys(BENCHES).join(', ')}`);
    process.exit(2);
  }
  for (const name of wanted.length ? wanted : Object.keys(BENCHES)) {
    console.log(`\n## ${name}\n`);
    console.log(await BENCHES[name]());
  }
}

main().catch((error: unknown) => {
  console.error(error);
  process.exit(1);
});
