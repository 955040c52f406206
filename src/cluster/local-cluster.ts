import { chmodSync, copyFileSync, existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { isPortOpen, isTemporalServer } from '../server/dev-server';
import { findOrBuildTemporalCli, type Log } from '../server/temporal-cli';
import { ensureSearchAttributes } from '../worker/ensure-search-attributes';
import { findOrBuildServer, findOrBuildUi, type ServerBinaries } from './binaries';
import { readClusterSpec, type ClusterSpec } from './compose-spec';
import { daemonPid, startDaemon, stopDaemon } from './daemon';
import { freeLowPort } from './free-port';
import { findPostgresBin, initPostgres, postgresRunning, startPostgres, stopPostgres, type Postgres } from './postgres';
import type { ServerPorts } from './server-ports';
import { runJob, type JobPlace } from './setup-jobs';

export interface ClusterOptions {
  /** Everything the cluster keeps: PostgreSQL's data, the rendered configuration, logs, pids. */
  dir: string;
  ports: ServerPorts;
  /** The Web UI's port; none: no UI. */
  uiPort?: number;
  log: Log;
}

export interface ClusterStatus {
  address: string;
  postgres: boolean;
  server: number | undefined;
  ui: number | undefined;
  uiUrl?: string;
}

/** Temporal on PostgreSQL on this host, configured by docker-compose.temporal.yml (see compose-spec.ts). */
export class LocalCluster {
  readonly spec: ClusterSpec = readClusterSpec();
  readonly address: string;
  private binaries?: ServerBinaries;

  constructor(readonly options: ClusterOptions) {
    this.address = `127.0.0.1:${options.ports.FRONTEND_GRPC_PORT}`;
  }

  private file(name: string): string {
    return path.join(this.options.dir, name);
  }

  /** PostgreSQL, the schema, the server, the namespace and search attributes, then the Web UI. */
  async start(): Promise<void> {
    const { log } = this.options;
    await this.checkPortFree();
    const binaries = await this.serverBinaries();
    const pg = await this.postgres();
    mkdirSync(this.options.dir, { recursive: true, mode: 0o755 });
    chmodSync(this.options.dir, 0o755); // PostgreSQL's own user must reach its data folder inside
    const { POSTGRES_USER: user = 'temporal', POSTGRES_PASSWORD: password = 'temporal' } = this.spec.postgresEnv;
    await initPostgres(pg, user, password, this.spec.postgresSettings, log);
    await startPostgres(pg);
    log(`PostgreSQL is up on 127.0.0.1:${pg.port}`);
    const cli = await findOrBuildTemporalCli(log);
    const place: JobPlace = {
      composeAddress: this.spec.composeAddress,
      address: this.address,
      schemaDir: binaries.schemaDir,
      binDirs: [path.dirname(binaries.sqlTool), ...(path.isAbsolute(cli) ? [path.dirname(cli)] : [])],
      pgPort: pg.port,
      logFile: this.file('setup.log'),
    };
    await runJob('temporal-admin-tools (schema)', this.spec.schemaJob, place);
    log('The persistence and visibility schemas are up to date');
    await this.startServer();
    await runJob('temporal-create-namespace', this.spec.namespaceJob, place);
    await runJob('temporal-create-search-attributes', this.spec.searchAttributesJob, place);
    const added = await ensureSearchAttributes(this.address, 'default');
    if (added.length) log(`Warning: docker-compose.temporal.yml does not register ${added.join(', ')}; added here`);
    log(`Namespace default and the search attributes are registered`);
    if (this.options.uiPort) await this.startUi(this.options.uiPort).catch((err: Error) => log(`No Web UI: ${err.message}`));
  }

  /** The Temporal server alone (PostgreSQL already up): also what a restart test calls. */
  async startServer(): Promise<number> {
    const running = daemonPid(this.file('temporal.pid'));
    if (running) return running;
    await this.checkPortFree();
    const binaries = await this.serverBinaries();
    const pg = await this.postgres();
    mkdirSync(this.file('config/dynamicconfig'), { recursive: true });
    copyFileSync(binaries.configTemplate, this.file('config/docker.yaml'));
    copyFileSync(binaries.dynamicConfig, this.file('config/dynamicconfig/docker.yaml'));
    const env = {
      PATH: process.env.PATH,
      ...this.spec.serverEnv,
      // This host instead of Compose's network: the database here, every port on loopback only.
      POSTGRES_SEEDS: '127.0.0.1',
      DB_PORT: String(pg.port),
      POSTGRES_PORT: String(pg.port), // the template reads this one for the visibility store
      BIND_ON_IP: '127.0.0.1',
      ...Object.fromEntries(Object.entries(this.options.ports).map(([k, v]) => [k, String(v)])),
      DYNAMIC_CONFIG_FILE_PATH: this.file('config/dynamicconfig/docker.yaml'),
    };
    const args = ['--root', this.options.dir, '--config', 'config', '--env', 'docker', 'start'];
    const pid = startDaemon(binaries.server, args, env, this.file('temporal.log'), this.file('temporal.pid'));
    await this.waitForServer(pid);
    this.options.log(`Temporal server ${this.spec.serverVersion} is up on ${this.address} (pid ${pid})`);
    return pid;
  }

  private async checkPortFree(): Promise<void> {
    if (daemonPid(this.file('temporal.pid')) || !(await isPortOpen('127.0.0.1', this.options.ports.FRONTEND_GRPC_PORT))) return;
    throw new Error(
      `Port ${this.options.ports.FRONTEND_GRPC_PORT} is taken by another process (another Temporal server? bareagent's embedded one?).\n` +
        '  Stop it, or choose another port with BAREAGENT_CLUSTER_PORT.',
    );
  }

  private async waitForServer(pid: number): Promise<void> {
    const deadline = Date.now() + 180_000;
    while (!(await isTemporalServer(this.address))) {
      if (!daemonPid(this.file('temporal.pid'))) throw new Error(`the Temporal server (pid ${pid}) exited:\n${this.logTail('temporal.log')}`);
      if (Date.now() > deadline) throw new Error(`the Temporal server did not answer on ${this.address} within 180 s:\n${this.logTail('temporal.log')}`);
      await new Promise((r) => setTimeout(r, 500));
    }
  }

  /** The UI image's server and configuration template, with the compose file's settings for it. */
  private async startUi(uiPort: number): Promise<void> {
    if (daemonPid(this.file('ui.pid'))) return;
    const ui = await findOrBuildUi(this.spec.uiVersion, this.options.log);
    mkdirSync(this.file('ui/config'), { recursive: true });
    copyFileSync(ui.configTemplate, this.file('ui/config/docker.yaml'));
    const env = {
      PATH: process.env.PATH,
      ...this.spec.uiEnv,
      TEMPORAL_ADDRESS: this.address,
      TEMPORAL_UI_PORT: String(uiPort),
      TEMPORAL_CORS_ORIGINS: (this.spec.uiEnv.TEMPORAL_CORS_ORIGINS ?? '').replace(/:8233\b/g, `:${uiPort}`),
    };
    const args = ['--root', this.file('ui'), '--config', 'config', '--env', 'docker', 'start'];
    startDaemon(ui.server, args, env, this.file('ui.log'), this.file('ui.pid'));
    const deadline = Date.now() + 30_000;
    while (!(await isPortOpen('127.0.0.1', uiPort))) {
      if (!daemonPid(this.file('ui.pid'))) throw new Error(`the Web UI server exited:\n${this.logTail('ui.log')}`);
      if (Date.now() > deadline) throw new Error(`the Web UI did not listen on ${uiPort} within 30 s`);
      await new Promise((r) => setTimeout(r, 300));
    }
    this.options.log(`Web UI ${this.spec.uiVersion} on http://127.0.0.1:${uiPort}`);
  }

  /** Stops the server as `docker compose stop` would (30 s grace, then SIGKILL). */
  async stopServer(): Promise<void> {
    await stopDaemon(this.file('temporal.pid'), 30_000);
  }

  async stop(): Promise<void> {
    if (await stopDaemon(this.file('ui.pid'), 5_000)) this.options.log('Web UI stopped');
    if (daemonPid(this.file('temporal.pid'))) {
      await this.stopServer();
      this.options.log('Temporal server stopped');
    }
    const pg = await this.postgres();
    if (await postgresRunning(pg)) {
      await stopPostgres(pg);
      this.options.log('PostgreSQL stopped');
    }
  }

  async status(): Promise<ClusterStatus> {
    const pg = await this.postgres();
    const ui = daemonPid(this.file('ui.pid'));
    return {
      address: this.address,
      postgres: await postgresRunning(pg),
      server: daemonPid(this.file('temporal.pid')),
      ui,
      ...(ui && this.options.uiPort ? { uiUrl: `http://127.0.0.1:${this.options.uiPort}` } : {}),
    };
  }

  private async serverBinaries(): Promise<ServerBinaries> {
    this.binaries ??= await findOrBuildServer(this.spec.serverVersion, this.options.log);
    return this.binaries;
  }

  /** PostgreSQL's port is chosen once, at the first start, and kept in cluster.json. */
  private async postgres(): Promise<Postgres> {
    const stateFile = this.file('cluster.json');
    let state = existsSync(stateFile) ? (JSON.parse(readFileSync(stateFile, 'utf8')) as { pgPort: number }) : undefined;
    if (!state) {
      mkdirSync(this.options.dir, { recursive: true });
      state = { pgPort: await freeLowPort() };
      writeFileSync(stateFile, JSON.stringify(state, null, 2));
    }
    return { bin: await findPostgresBin(), data: this.file('pgdata'), port: state.pgPort, logFile: this.file('postgres.log') };
  }

  private logTail(name: string): string {
    try {
      return readFileSync(this.file(name), 'utf8').trim().split('\n').slice(-12).map((line) => line.slice(0, 400)).join('\n');
    } catch {
      return '(no log)';
    }
  }
}
