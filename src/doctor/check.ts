/** One line of `bareagent doctor`: what was looked at, what was found, and how to fix it when it is not ok. */
export interface Check {
  name: string;
  /** ok; missing (absent or not working); warn (works, but less than it should: said, never fatal). */
  status: 'ok' | 'missing' | 'warn';
  /** A missing required check makes the doctor (and every start that runs it) fail. */
  required: boolean;
  /** What was found, or why it does not work. */
  detail: string;
  fix?: Fix;
  /** The system package that provides it (a key of SYSTEM_PACKAGES): what `npm run setup` installs. */
  package?: SystemPackage;
  /**
   * On a check that is ok with a package registry's copy (npm's Chromium or PostgreSQL, PyPI's
   * bubblewrap): the system package that would be used instead, which `npm run setup` installs
   * (running it says the system's are preferred); the two commands never need it.
   */
  prefer?: SystemPackage;
}

/** The system packages the project uses, by distribution. */
export const SYSTEM_PACKAGES = {
  bubblewrap: { debian: 'bubblewrap', fedora: 'bubblewrap', macos: 'none: bubblewrap needs Linux namespaces' },
  socat: { debian: 'socat', fedora: 'socat', macos: 'brew install socat' },
  chromium: { debian: 'chromium', fedora: 'chromium', macos: 'none needed by the product; the Web UI test runs on Linux' },
  postgresql: { debian: 'postgresql', fedora: 'postgresql-server', macos: 'brew install postgresql' },
  pip: { debian: 'python3-pip', fedora: 'python3-pip', macos: 'python3 -m ensurepip (or brew install python)' },
} as const;
export type SystemPackage = keyof typeof SYSTEM_PACKAGES;

/** The fix that installs one package, per distribution. */
export function installFix(name: SystemPackage, macos?: string): Fix {
  const pkg = SYSTEM_PACKAGES[name];
  return { debian: `sudo apt-get install -y ${pkg.debian}`, fedora: `sudo dnf install -y ${pkg.fedora}`, macos: macos ?? pkg.macos };
}

/** The exact commands, per platform; `other` for what is the same everywhere (an env variable, a sysctl). */
export interface Fix {
  debian?: string;
  fedora?: string;
  macos?: string;
  other?: string;
}

/** What the caller is about to do, hence which checks are required. */
export interface Needs {
  /** The embedded dev server will be started: the Temporal CLI. */
  cli: boolean;
  /** A worker will run commands here: bubblewrap (unless BAREAGENT_SANDBOX=off, when not for tests). */
  sandbox: boolean;
  /** `npm test`: a browser and a pseudo-terminal become required and the sandbox cannot be switched off. */
  tests: boolean;
  /** `npm run test:cluster`: PostgreSQL's server programs. */
  postgres: boolean;
}

export const failing = (checks: Check[]): Check[] => checks.filter((c) => c.required && c.status === 'missing');
