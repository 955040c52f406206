import { ScheduleAlreadyRunning, ScheduleNotFoundError, ScheduleOverlapPolicy, type Client, type ScheduleSummary } from '@temporalio/client';
import { visibleJson } from '../../common/visible-text';
import { Option, type Command } from 'commander';
import pc from 'picocolors';
import { WORKFLOW_TYPE } from '../../connection/config';
import { openStack } from '../local-stack';
import { buildRunInput, type RunFlags } from '../run-input';
import { firstLine } from '../../runs/run-labels';
import { UsageError } from '../../runs/usage-error';
import { scheduleSpec } from '../schedule-spec';
import { formatTable } from '../../terminal/table';

const OVERLAPS = ['skip', 'buffer_one', 'buffer_all', 'cancel_other', 'terminate_other', 'allow_all'] as const;
/** The schedule's memo key for the spec as the user wrote it: the server hands cron back as calendars. */
const SPEC_MEMO = 'bareagentSpec';

export interface ScheduleCreateFlags extends RunFlags {
  cron?: string;
  every?: string;
  overlap?: (typeof OVERLAPS)[number];
  json?: boolean;
}

export interface ListedSchedule {
  scheduleId: string;
  spec: string;
  nextRun: string | null;
  paused: boolean;
  note: string | null;
}

const quiet = { embedded: false, log: () => undefined };

async function withClient<T>(fn: (client: Client, taskQueue: string) => Promise<T>): Promise<T> {
  const stack = await openStack(quiet);
  try {
    return await fn(stack.client, stack.config.taskQueue);
  } finally {
    await stack.close();
  }
}

/** Unknown ids and taken ids are usage errors with the id in the message, not SDK stack traces. */
async function clearly<T>(scheduleId: string, promise: Promise<T>, creating = false): Promise<T> {
  try {
    return await promise;
  } catch (err) {
    if (err instanceof ScheduleNotFoundError) throw new UsageError(`No schedule "${scheduleId}" (bareagent schedule list shows them)`);
    if (err instanceof ScheduleAlreadyRunning) throw new UsageError(`Schedule "${scheduleId}" already exists; delete it first or choose another id`);
    // The server compiles the cron expression; the SDK turns its refusal ("Invalid schedule spec") into a TypeError.
    if (creating && err instanceof TypeError) throw new UsageError(`Refused by the server: invalid schedule spec: ${err.message}`);
    // Any other INVALID_ARGUMENT (gRPC code 3), e.g. an id the server will not take.
    if (err instanceof Error && err.cause instanceof Error && (err.cause as { code?: number }).code === 3) throw new UsageError(`Refused by the server: ${err.cause.message}`);
    throw err;
  }
}

export async function scheduleCreate(scheduleId: string, prompt: string, flags: ScheduleCreateFlags): Promise<number> {
  const input = buildRunInput(prompt, flags);
  const { spec, text } = scheduleSpec(flags);
  const overlap = (flags.overlap ?? 'skip').toUpperCase() as Exclude<ScheduleOverlapPolicy, undefined>;
  return withClient(async (client, taskQueue) => {
    const handle = await clearly(
      scheduleId,
      client.schedule.create({
        scheduleId,
        spec,
        // Each firing is an ordinary agentRun: the server names it `<scheduleId>-<timestamp>`.
        action: { type: 'startWorkflow', workflowType: WORKFLOW_TYPE, workflowId: scheduleId, taskQueue, args: [input], staticSummary: firstLine(prompt) },
        policies: { overlap },
        memo: { [SPEC_MEMO]: text },
      }),
      true,
    );
    const next = (await handle.describe()).info.nextActionTimes[0]?.toISOString() ?? null;
    if (flags.json) console.log(visibleJson({ scheduleId, spec: text, overlap, nextRun: next }));
    else console.log(`Schedule ${scheduleId} created (${text}, overlap ${overlap.toLowerCase()}); next run ${next ? localTime(next) : 'none'}`);
    return 0;
  });
}

function specText(summary: ScheduleSummary): string {
  const memo = summary.memo?.[SPEC_MEMO];
  if (typeof memo === 'string') return memo;
  const interval = summary.spec?.intervals?.[0];
  if (interval) return `every ${Math.round(interval.every / 1000)}s`;
  return summary.spec?.calendars?.length ? 'calendar' : '-';
}

export async function scheduleList(flags: { json?: boolean }): Promise<number> {
  return withClient(async (client) => {
    const schedules: ListedSchedule[] = [];
    for await (const summary of client.schedule.list()) {
      if (summary.action?.workflowType !== WORKFLOW_TYPE) continue;
      schedules.push({
        scheduleId: summary.scheduleId,
        spec: specText(summary),
        nextRun: summary.info.nextActionTimes[0]?.toISOString() ?? null,
        paused: summary.state.paused,
        note: summary.state.note ?? null,
      });
    }
    schedules.sort((a, b) => a.scheduleId.localeCompare(b.scheduleId));
    if (flags.json) console.log(visibleJson(schedules, undefined, 2));
    else if (schedules.length === 0) console.log('No agentRun schedule.');
    else {
      const rows = schedules.map((s) => [s.scheduleId, s.spec, s.nextRun ? localTime(s.nextRun) : '-', s.paused ? 'yes' : 'no']);
      console.log(formatTable(['SCHEDULE ID', 'SPEC', 'NEXT RUN', 'PAUSED'], rows));
    }
    return 0;
  });
}

export async function scheduleDelete(scheduleId: string, flags: { json?: boolean }): Promise<number> {
  return withClient(async (client) => {
    await clearly(scheduleId, client.schedule.getHandle(scheduleId).delete());
    if (flags.json) console.log(visibleJson({ scheduleId, deleted: true }));
    else console.log(`Schedule ${scheduleId} deleted; runs it started are left as they are.`);
    return 0;
  });
}

/** Fires the schedule now and prints the workflow id of the run it started, once the schedule records it. */
export async function scheduleTrigger(scheduleId: string, flags: { json?: boolean }): Promise<number> {
  return withClient(async (client) => {
    const handle = client.schedule.getHandle(scheduleId);
    const before = new Set((await clearly(scheduleId, handle.describe())).info.recentActions.map((a) => a.action.workflow.workflowId));
    await clearly(scheduleId, handle.trigger(ScheduleOverlapPolicy.ALLOW_ALL));
    let workflowId: string | null = null;
    for (let i = 0; i < 50 && !workflowId; i++) {
      const recent = (await handle.describe()).info.recentActions.map((a) => a.action.workflow.workflowId);
      workflowId = recent.find((id) => !before.has(id)) ?? null;
      if (!workflowId) await new Promise((resolve) => setTimeout(resolve, 200));
    }
    if (flags.json) console.log(visibleJson({ scheduleId, workflowId }));
    else if (workflowId) console.log(`${workflowId}\n${pc.dim(`follow it: bareagent follow ${workflowId}`)}`);
    else console.log(`Schedule ${scheduleId} triggered; its run shows in bareagent list --query "TemporalScheduledById = '${scheduleId}'"`);
    return 0;
  });
}

function localTime(iso: string): string {
  return new Date(iso).toLocaleString('sv-SE');
}

type Settle = (code: Promise<number>) => Promise<void>;

/** `runFlags` is client.ts's set of run flags, so a scheduled run takes exactly what `run` takes. */
export function registerSchedule(program: Command, settle: Settle, runFlags: (command: Command) => Command): void {
  const schedule = program
    .command('schedule')
    .description('run an agent on a cron or an interval (Temporal Schedules); each firing is an ordinary agentRun')
    .addHelpText(
      'after',
      `
Each firing starts an agentRun named <scheduleId>-<timestamp> on BAREAGENT_TASK_QUEUE; it shows in
bareagent list like any run. A worker must be running when it fires.

Examples:
  bareagent schedule create nightly-deps "Update the deps and run the tests" --cron "0 3 * * *" -w ~/src/project
  bareagent schedule create hourly-triage "Triage new issues" --every 1h --mode auto
  bareagent schedule list
  bareagent schedule trigger nightly-deps
  bareagent schedule delete nightly-deps`,
    );
  runFlags(schedule.command('create').argument('<scheduleId>', 'the schedule id').argument('<prompt>', 'what each run should do'))
    .option('--cron <expression>', 'when to run, five cron fields, e.g. "0 3 * * *" (UTC)')
    .option('--every <duration>', 'run at this interval, e.g. 30m, 24h, 1h30m')
    .addOption(new Option('--overlap <policy>', 'what a firing does while the previous run is still open').choices(OVERLAPS).default('skip'))
    .description('create a schedule whose every firing starts an agentRun with these run flags')
    .addHelpText(
      'after',
      `
Run flags are checked as bareagent run checks them, before the schedule is created. --id is ignored:
the server names each run <scheduleId>-<timestamp>.

Examples:
  bareagent schedule create nightly "Run the tests and fix what fails" --cron "0 3 * * *" -w ~/src/project
  bareagent schedule create poll "Check the build" --every 15m --overlap buffer_one`,
    )
    .action((scheduleId: string, prompt: string, flags: ScheduleCreateFlags) => settle(scheduleCreate(scheduleId, prompt, flags)));
  schedule
    .command('list')
    .option('--json', 'print a JSON array')
    .description('list the agentRun schedules: id, spec, next run, paused')
    .addHelpText('after', '\nExamples:\n  bareagent schedule list\n  bareagent schedule list --json | jq -r \'.[].scheduleId\'')
    .action((flags: { json?: boolean }) => settle(scheduleList(flags)));
  schedule
    .command('delete')
    .argument('<scheduleId>', 'the schedule')
    .option('--json', 'print JSON')
    .description('delete a schedule (runs it started are left alone)')
    .addHelpText('after', '\nExample:\n  bareagent schedule delete nightly')
    .action((scheduleId: string, flags: { json?: boolean }) => settle(scheduleDelete(scheduleId, flags)));
  schedule
    .command('trigger')
    .argument('<scheduleId>', 'the schedule')
    .option('--json', 'print JSON')
    .description('fire a schedule now and print the workflow id of the run it started')
    .addHelpText('after', '\nExamples:\n  bareagent schedule trigger nightly\n  id=$(bareagent schedule trigger nightly --json | jq -r .workflowId) && bareagent follow "$id"')
    .action((scheduleId: string, flags: { json?: boolean }) => settle(scheduleTrigger(scheduleId, flags)));
}
