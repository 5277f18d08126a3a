import 'reflect-metadata';
import { loadConfig } from '../config';
import { openDatabase } from '../models';
import { createLogger } from '../logger';
import { seedDemoData } from './seed';

/** `npm run seed`: loads the demo data into the database of MONGODB_URI (idempotent). */
async function main(): Promise<void> {
  const config = loadConfig(process.env);
  const logger = createLogger(config);
  if (!config.mongodbUri) {
    console.log('MONGODB_URI is not set: the embedded engine keeps data in memory and `npm start` seeds it automatically, so there is nothing to seed. Set MONGODB_URI to seed a real MongoDB.');
    return;
  }
  const database = await openDatabase(config, logger);
  await database.ready;
  const summary = await seedDemoData(database.models);
  console.log(`seeded ${database.displayUri}: ${JSON.stringify(summary)}`);
  await database.close();
}

main().catch((error: unknown) => {
  console.error('seed failed:', error instanceof Error ? error.message : error);
  process.exit(1);
});
