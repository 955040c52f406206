import { realpathSync } from 'node:fs';
import path from 'node:path';
import type { Client } from '@temporalio/client';
import { ApplicationFailure, METADATA_ENCODING_KEY, type Payload } from '@temporalio/common';
import { ENCRYPTED_ENCODING, METADATA_KEY_ID } from '../codec/encryption-codec';
import { FailureType } from '../common/failures';

/** The operator's switch for forks between workspaces (one user's conversation into another's files). */
export const FORK_ACROSS_WORKSPACES_ENV = 'BAREAGENT_FORK_ACROSS_WORKSPACES';

/** The fork's workspace: the path its run resolved at its start, and the one its input gave (before any link was resolved). */
export interface ForkPlace {
  workspace?: string | undefined;
  given?: string | undefined;
}

export interface ForkParty {
  workflowId: string;
  runId: string;
}

/**
 * Whether this run may read the origin, decided on the worker (which holds the codec and reads both
 * histories itself), not on what the fork's starter claims:
 * - the same workspace (canonical path) unless the operator allows forks across workspaces: a run
 *   elsewhere would otherwise copy another user's conversation, and what it read, into its own files;
 * - an encrypted origin only into a run whose own input was encrypted with the same key: a starter
 *   without the key would otherwise have the worker decrypt the origin into a history, results and
 *   webhooks the starter can read.
 * A refusal is `InvalidInput` naming the reason.
 */
export async function authoriseFork(client: Client, origin: ForkParty, fork: ForkParty, place: ForkPlace, env = process.env): Promise<string> {
  const forkWorkspace = place.workspace;
  const [originStart, forkStart] = await Promise.all([startedPayload(client, origin), startedPayload(client, fork)]);
  const originKey = encryptionKey(originStart);
  const forkKey = encryptionKey(forkStart);
  if (originKey !== undefined && originKey !== forkKey) {
    throw refused(
      forkKey === undefined
        ? `forkFrom: the origin ${origin.workflowId} is encrypted (key ${originKey}) and this run's payloads are not: start the fork from a client that holds that key`
        : `forkFrom: the origin ${origin.workflowId} is encrypted with key ${originKey}, this run's payloads with key ${forkKey}: a fork keeps the origin's key`,
    );
  }
  if (env[FORK_ACROSS_WORKSPACES_ENV] === '1') return canonical(forkWorkspace);
  const originInput = originStart ? await decodeInput(client, originStart) : undefined;
  const originGiven = (originInput as { workspace?: unknown } | undefined)?.workspace;
  const originWorkspace = canonical(originGiven);
  const ownWorkspace = canonical(forkWorkspace);
  // A link is checked at one instant and may be re-pointed the next: a fork names its workspace as
  // its origin did (what `bareagent fork` sends) or by its real path, never by another link.
  const given = absolute(place.given ?? forkWorkspace);
  if (given !== ownWorkspace && given !== absolute(originGiven)) {
    throw refused(
      `forkFrom: this run's workspace ${given} is reached through a link (it names ${ownWorkspace} now): a fork names its workspace as its origin did (${absolute(originGiven)}) or by its real path, since a link can be re-pointed once it was checked`,
    );
  }
  if (originWorkspace !== ownWorkspace) {
    throw refused(
      `forkFrom: the origin ${origin.workflowId} ran in workspace ${originWorkspace}, this run's workspace is ${ownWorkspace}: a run may fork only a run of its own workspace (an operator can allow it with ${FORK_ACROSS_WORKSPACES_ENV}=1)`,
    );
  }
  // The path checked is the one the fork's tools use from now on (returned, recorded), so a link flipped after the check moves nothing.
  return ownWorkspace;
}

/** The input payload of a run's WorkflowExecutionStarted event, as stored (still encrypted). Only the first event: a long run's history is megabytes. */
async function startedPayload(client: Client, run: ForkParty): Promise<Payload | undefined> {
  const { history } = await client.workflowService.getWorkflowExecutionHistory({
    namespace: client.options.namespace,
    execution: { workflowId: run.workflowId, runId: run.runId },
    maximumPageSize: 1,
  });
  return (history?.events?.[0]?.workflowExecutionStartedEventAttributes?.input?.payloads?.[0] ?? undefined) as Payload | undefined;
}

function encryptionKey(payload: Payload | undefined): string | undefined {
  const encoding = payload?.metadata?.[METADATA_ENCODING_KEY];
  if (!encoding || Buffer.from(encoding).toString() !== ENCRYPTED_ENCODING) return undefined;
  const keyId = payload?.metadata?.[METADATA_KEY_ID];
  return keyId ? Buffer.from(keyId).toString() : '(no key id)';
}

async function decodeInput(client: Client, payload: Payload): Promise<unknown> {
  const { payloadCodecs, payloadConverter } = client.options.loadedDataConverter;
  let decoded = [payload];
  for (const codec of [...payloadCodecs].reverse()) decoded = await codec.decode(decoded);
  return decoded[0] ? payloadConverter.fromPayload(decoded[0]) : undefined;
}

/** A workspace as given: absolute; unset is the worker's current directory. */
function absolute(workspace: unknown): string {
  return path.resolve(typeof workspace === 'string' && workspace ? workspace : process.cwd());
}

/** A workspace as the tools see it: absolute, symlinks resolved. */
function canonical(workspace: unknown): string {
  const given = absolute(workspace);
  try {
    return realpathSync(given);
  } catch {
    return given;
  }
}

function refused(message: string): ApplicationFailure {
  return ApplicationFailure.create({ type: FailureType.InvalidInput, message, nonRetryable: true });
}
