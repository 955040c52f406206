import type { Command } from 'commander';
import { failing } from '../../doctor/check';
import { renderChecks, runChecks } from '../../doctor/run-doctor';
import { EXIT } from '../run-outcome';

/** `bareagent doctor [--for-tests]`: what this machine has and lacks, and the exact fix; exit 1 when a required check fails. */
export function registerDoctor(program: Command, set: (p: Promise<number>) => void): void {
  program
    .command('doctor')
    .option('--for-tests', 'also what npm test needs: socat, Chromium, tmux, PostgreSQL')
    .description('check this machine: Node, the Temporal CLI, bubblewrap (and that it works), socat, cgroups; exact fixes')
    .addHelpText(
      'after',
      `
Required: Node.js 20+, the Temporal CLI (or pip or Go to get it) for the embedded server, a
working bubblewrap unless BAREAGENT_SANDBOX=off; with --for-tests also socat, Chromium, tmux and
PostgreSQL's initdb/pg_ctl. Exit code 1 when something required is missing.

Examples:
  bareagent doctor
  npx tsx src/client.ts doctor --for-tests`,
    )
    .action((flags: { forTests?: boolean }) => set(doctorCommand(!!flags.forTests)));
}

export async function doctorCommand(forTests: boolean): Promise<number> {
  const tests = forTests;
  const checks = await runChecks({ cli: true, sandbox: true, tests, postgres: tests });
  console.log(renderChecks(checks));
  return failing(checks).length ? EXIT.failed : EXIT.ok;
}
