// `npm run bench` (from the project root or bench/): see lib/main.js, or `npm run bench -- --help`.
import { ensureBuilt, ensureInstalled, ensureNestBuilt } from './lib/setup.js';

ensureInstalled();
ensureBuilt();
ensureNestBuilt();
const { main } = await import('./lib/main.js');
await main().catch((err) => {
  console.error(`bench: ${err.stack ?? err}`);
  process.exit(1);
});
