import { findOrBuildTemporalCli } from './temporal-cli';

/** `npm run temporal-cli`: finds or builds the Temporal CLI and prints its path. */
async function main() {
  console.log(await findOrBuildTemporalCli());
}

main().catch((err) => {
  console.error(err instanceof Error ? err.message : err);
  process.exit(1);
});
