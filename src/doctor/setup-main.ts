import { spawnSync } from 'node:child_process';
import { failing, SYSTEM_PACKAGES, type Needs } from './check';
import { installCommands, packagesFor } from './install-plan';
import { platformFamily, renderChecks, runChecks } from './run-doctor';

/**
 * `npm run setup`: installs the system packages the doctor finds missing (for the product and,
 * unless --runtime, for the tests), with apt-get or dnf, as root or with `sudo -n`; where it
 * cannot, it prints the command to run. Then the doctor's table; exit 1 if something required is
 * still missing (a package cannot fix a kernel that forbids user namespaces).
 */
async function main() {
  const tests = !process.argv.includes('--runtime');
  const needs: Needs = { cli: true, sandbox: true, tests, postgres: tests };
  const before = await runChecks(needs);
  const packages = packagesFor(before);
  const family = platformFamily();
  if (!packages.length) console.log('npm run setup: no system package is missing.');
  else {
    const commands = installCommands(family, packages);
    const sudo = asRoot() ? [] : canSudo() ? ['sudo', '-n'] : undefined;
    if (!commands) {
      console.log(`npm run setup: this is neither Debian/Ubuntu nor Fedora; install these yourself: ${packages.join(', ')}`);
      if (family === 'macos') for (const p of packages) console.log(`  ${p}: ${SYSTEM_PACKAGES[p].macos}`);
    } else if (!sudo) {
      console.log('npm run setup: not root, and sudo asks for a password here; run:');
      for (const argv of commands) console.log(`  sudo ${argv.join(' ')}`);
    } else {
      for (const argv of commands) {
        const full = [...sudo, ...argv];
        console.log(`npm run setup: ${full.join(' ')}`);
        const result = spawnSync(full[0]!, full.slice(1), { stdio: 'inherit' });
        if (result.status !== 0) {
          console.error(`npm run setup: ${full.join(' ')} failed (${result.error?.message ?? `exit ${result.status}`})`);
          break;
        }
      }
    }
  }
  const after = packages.length ? await runChecks(needs) : before;
  console.log(renderChecks(after, family));
  process.exit(failing(after).length ? 1 : 0);
}

function asRoot(): boolean {
  return process.getuid?.() === 0;
}

function canSudo(): boolean {
  return spawnSync('sudo', ['-n', 'true'], { stdio: 'ignore', timeout: 10_000 }).status === 0;
}

main().catch((err) => {
  console.error(err);
  process.exit(1);
});
