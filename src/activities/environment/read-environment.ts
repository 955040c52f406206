import os from 'node:os';
import type { RunEnvironment } from '../../common/run-environment';
import { workspaceRoot } from '../tools/workspace';
import { listWorkspace } from './list-workspace';

/** At run start, on the worker that holds the workspace: where the run works, for the default system prompt. */
export async function readRunEnvironment(request: { workspace?: string }): Promise<RunEnvironment> {
  const root = workspaceRoot(request.workspace);
  const { listing, omitted } = await listWorkspace(root);
  return { workspace: root, os: `${os.type()} ${os.release()} (${process.arch})`, listing, omitted };
}
