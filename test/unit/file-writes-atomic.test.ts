import { spawn } from 'node:child_process';
import { chmodSync, mkdtempSync, readdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { toolSchemas } from '../../src/common/tool-schemas';
import { editFile } from '../../src/activities/tools/edit-file';
import { writeFile } from '../../src/activities/tools/write-file';
import { workspaceRoot } from '../../src/activities/tools/workspace';

const FIXTURE = path.resolve(__dirname, '../fixtures/file-tools/write-until-first-write.ts');
const ORIGINAL = '[e1]\n[e4]\n[e7]\n';

let root: string;
beforeEach(() => {
  root = workspaceRoot(mkdtempSync(path.join(os.tmpdir(), 'atomic-ws-')));
  writeFileSync(path.join(root, 'edits.txt'), ORIGINAL);
});

/** Starts the tool in a process of its own, SIGKILLs it at its first write of content, waits for its end. */
async function killAtFirstWrite(tool: 'write_file' | 'edit_file', input: object): Promise<void> {
  const child = spawn(process.execPath, ['--import', 'tsx', FIXTURE, root, tool, JSON.stringify(input)], { stdio: ['ignore', 'pipe', 'pipe'] });
  let output = '';
  let errors = '';
  child.stderr.on('data', (chunk: Buffer) => (errors += chunk.toString()));
  const exited = new Promise<NodeJS.Signals | null>((resolve) => child.on('exit', (_code, signal) => resolve(signal)));
  await new Promise<void>((resolve, reject) => {
    child.stdout.on('data', (chunk: Buffer) => {
      output += chunk.toString();
      if (output.includes('writing\n')) resolve();
    });
    child.on('exit', () => reject(new Error(`the tool ended before its first write: ${output}${errors}`)));
  });
  child.kill('SIGKILL');
  expect(await exited).toBe('SIGKILL');
}

describe('write_file and edit_file replace a file all at once', () => {
  test.each([
    ['edit_file', { file_path: 'edits.txt', old_text: '[e1]', new_text: '[e1]+' }],
    ['write_file', { file_path: 'edits.txt', content: 'new content\n' }],
  ] as const)('%s killed at its first write leaves the file as it was', async (tool, input) => {
    await killAtFirstWrite(tool, input);
    expect(readFileSync(path.join(root, 'edits.txt'), 'utf8')).toBe(ORIGINAL);
    // What the kill left behind is a temporary file beside it, named as such.
    expect(readdirSync(root).filter((name) => name !== 'edits.txt')).toEqual([expect.stringMatching(/^\.bareagent-[0-9a-f]{12}\.tmp$/)]);
  }, 30_000);

  test('the file keeps its mode, and nothing is left beside it', async () => {
    const file = path.join(root, 'edits.txt');
    chmodSync(file, 0o754);
    await editFile(root, toolSchemas.edit_file.parse({ file_path: 'edits.txt', old_text: '[e4]', new_text: '[e4]+' }));
    await writeFile(root, toolSchemas.write_file.parse({ file_path: 'sub/new.txt', content: 'x' }));
    expect(readFileSync(file, 'utf8')).toBe('[e1]\n[e4]+\n[e7]\n');
    expect(statSync(file).mode & 0o7777).toBe(0o754);
    expect(readdirSync(root).sort()).toEqual(['edits.txt', 'sub']);
    expect(readdirSync(path.join(root, 'sub'))).toEqual(['new.txt']);
  });

  test('a directory that takes no new file: the file is still written, in place', async () => {
    if (process.getuid?.() === 0) return; // root writes into any directory
    chmodSync(root, 0o555);
    try {
      await editFile(root, toolSchemas.edit_file.parse({ file_path: 'edits.txt', old_text: '[e7]', new_text: '[e7]+' }));
    } finally {
      chmodSync(root, 0o755);
    }
    expect(readFileSync(path.join(root, 'edits.txt'), 'utf8')).toBe('[e1]\n[e4]\n[e7]+\n');
  });
});

describe("a replaced file keeps its extended attributes", () => {
  // setxattr/getxattr through the same maintained binding the tools use; an ACL is one of these (system.posix_acl_access).
  const attrs = () => import('@napi-rs/xattr');
  test('user.* attributes and an ACL survive write_file and edit_file; a file without any gets none', async () => {
    const { getAttributeSync, listAttributesSync, setAttributeSync } = await attrs();
    const file = path.join(root, 'edits.txt');
    setAttributeSync(file, 'user.origin', 'downloaded');
    setAttributeSync(file, 'user.checksum', Buffer.from([0, 1, 2, 255]));
    // An ACL entry giving uid 4242 read access, in the kernel's binary form: header v2, then (tag, perm, id) entries.
    const entry = (tag: number, perm: number, id: number) => { const b = Buffer.alloc(8); b.writeUInt16LE(tag, 0); b.writeUInt16LE(perm, 2); b.writeUInt32LE(id, 4); return b; };
    const acl = Buffer.concat([Buffer.from([2, 0, 0, 0]), entry(0x01, 6, 0xffffffff), entry(0x02, 4, 4242), entry(0x04, 4, 0xffffffff), entry(0x10, 4, 0xffffffff), entry(0x20, 4, 0xffffffff)]);
    setAttributeSync(file, 'system.posix_acl_access', acl);
    const before = statSync(file).ino;
    await writeFile(root, toolSchemas.write_file.parse({ file_path: 'edits.txt', content: '[w]\n' }));
    expect(statSync(file).ino).not.toBe(before); // replaced by rename, not written in place
    await editFile(root, toolSchemas.edit_file.parse({ file_path: 'edits.txt', old_text: '[w]', new_text: '[e]' }));
    expect(readFileSync(file, 'utf8')).toBe('[e]\n');
    expect(getAttributeSync(file, 'user.origin')?.toString()).toBe('downloaded');
    expect(getAttributeSync(file, 'user.checksum')).toEqual(Buffer.from([0, 1, 2, 255]));
    expect(getAttributeSync(file, 'system.posix_acl_access')).toEqual(acl);
    writeFileSync(path.join(root, 'plain.txt'), 'x\n');
    await writeFile(root, toolSchemas.write_file.parse({ file_path: 'plain.txt', content: 'y\n' }));
    expect(listAttributesSync(path.join(root, 'plain.txt'))).toEqual([]);
  });
});
