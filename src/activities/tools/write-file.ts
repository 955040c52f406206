import type { ToolArgs } from '../../common/tool-schemas';
import { replaceContent } from './file-io';
import { openInWorkspace } from './safe-open';

export async function writeFile(root: string, args: ToolArgs<'write_file'>): Promise<string> {
  const content = Buffer.from(args.content, 'utf8');
  const { handle } = await openInWorkspace(root, args.file_path, 'write');
  try {
    await replaceContent(handle, content);
  } finally {
    await handle.close();
  }
  return `Wrote ${content.length} bytes to ${args.file_path}`;
}
