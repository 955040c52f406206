import type { ToolArgs } from '../../common/tool-schemas';
import { replaceContent } from './file-io';
import { closeOpened, openInWorkspace } from './safe-open';
import { numberedRegion, withRegion } from './edited-region';
import { UNNUMBERED_NOTE, unnumberedPaste } from './numbered-paste';

export async function writeFile(root: string, args: ToolArgs<'write_file'>): Promise<string> {
  const unnumbered = unnumberedPaste(args.content);
  const text = unnumbered ?? args.content;
  const content = Buffer.from(text, 'utf8');
  const opened = await openInWorkspace(root, args.file_path, 'write');
  try {
    await replaceContent(root, opened, content, args.file_path);
  } finally {
    await closeOpened(opened);
  }
  // The whole file numbered when small, so that the model's next edit copies lines as they are.
  const done = `Wrote ${content.length} bytes to ${args.file_path}${unnumbered === undefined ? '' : ` ${UNNUMBERED_NOTE}`}`;
  return withRegion(done, numberedRegion(args.file_path, text));
}
