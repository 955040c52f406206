import { execFile } from 'node:child_process';
import { appendFileSync } from 'node:fs';
import path from 'node:path';
import type { Job } from './compose-spec';

export interface JobPlace {
  /** Where the compose file's scripts reach the server (`temporal:7233`) and where it is here. */
  composeAddress: string;
  address: string;
  /** The admin-tools image's schema folder, and where the same files are here. */
  schemaDir: string;
  /** Folders with temporal-sql-tool and temporal, put first on PATH. */
  binDirs: string[];
  pgPort: number;
  logFile: string;
}

const IMAGE_SCHEMA_DIR = '/etc/temporal/schema';

/** The script a compose one-shot job runs, pointed at this host's server, database and files. */
export function localScript(job: Job, place: Pick<JobPlace, 'composeAddress' | 'address' | 'schemaDir'>): string {
  return job.script.split(place.composeAddress).join(place.address).split(IMAGE_SCHEMA_DIR).join(place.schemaDir);
}

/** Runs one of the compose file's one-shot jobs here; its output is appended to `place.logFile`. */
export function runJob(name: string, job: Job, place: JobPlace): Promise<void> {
  const env: NodeJS.ProcessEnv = {
    PATH: [...place.binDirs, process.env.PATH ?? '/usr/bin:/bin'].join(path.delimiter),
    HOME: process.env.HOME,
    ...job.env,
    ...(job.env.SQL_HOST ? { SQL_HOST: '127.0.0.1', SQL_PORT: String(place.pgPort) } : {}),
    ...(job.env.TEMPORAL_ADDRESS ? { TEMPORAL_ADDRESS: place.address } : {}),
  };
  return new Promise((resolve, reject) => {
    execFile('/bin/sh', ['-c', localScript(job, place)], { env, timeout: 5 * 60_000, maxBuffer: 16 << 20 }, (err, stdout, stderr) => {
      appendFileSync(place.logFile, `== ${name} (${new Date().toISOString()})\n${stdout}${stderr}\n`);
      if (err) reject(new Error(`the compose file's ${name} job failed here:\n${`${stdout}${stderr}`.trim().split('\n').slice(-15).join('\n')}`));
      else resolve();
    });
  });
}
