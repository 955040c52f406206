import type { ToolArgs } from '../../common/tool-schemas';
import { replaceContent } from './file-io';
import { closeOpened, openInWorkspace } from './safe-open';

export async function writeFile(root: string, args: ToolArgs<'write_file'>): Promise<string> {
  const content = Buffer.from(args.content, 'utf8');
  const opened = await openInWorkspace(root, args.file_path, 'write');
  try {
    await replaceContent(root, opened, content, args.file_path);
  } finally {
    await closeOpened(opened);
  }
  return `Wrote ${content.length} bytes to ${args.file_path}`;
}
