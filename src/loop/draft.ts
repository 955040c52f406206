import type { ToolCall } from '../common/messages';
import { applyAnswer, languageOf, type NamedFile } from './code-answer';
import { isAcceptanceFile, looksLikeTest } from './acceptance-files';
import { canonicalPath } from './workspace-path';

/** A draft reply longer than this is not read for code (the small model's reply is a few KiB). */
const MAX_REPLY_CHARS = 64 * 1024;

export interface DraftConversation {
  messages: ReadonlyArray<{ role: string }>;
  attachments?: ReadonlyArray<{ path: string; kind: 'file' | 'listing'; truncated?: boolean }>;
}

const QUESTION_WORDS = /^(?:what|how|why|where|which|who|whom|whose|when|is|are|does|do|did|can|could|should|would|will|explain|describe|list|show|tell)\b/i;

/** A `?` that ends a sentence (`listen? Answer...`, not the operator of `a ? b : c`). */
const ASKED = /[\w)"'`]\?(?:\s+\S|\s*$)/;

/**
 * A prompt that asks rather than orders (a question word first, or a sentence of it ending in a
 * question mark, as in "On which port does it listen? Answer with the number only."): answered,
 * never drafted, so that no file is rewritten for a question.
 */
function isQuestion(prompt: string): boolean {
  const text = prompt.trim();
  return ASKED.test(text) || QUESTION_WORDS.test(text);
}

/** The files a draft shows and the one it writes. */
export interface DraftPlan {
  /** The file the draft's code goes to. */
  target: string;
  /** Every file the prompt attached, whole, in the order attached: shown in the request as the model alone is shown them. */
  shown: string[];
}

/**
 * What a run's first turn drafts (`draftFirst`), if it does: the prompt asks for work, not an
 * answer, and the run's conversation is still its first message, whose attached files (whole, not cut) leave exactly one that is code, not a test
 * (by its name, or a test file the acceptance check names: `readOnly`), in a language whose
 * functions the draft can place (JavaScript, Python), and the run may write files.
 */
export function draftPlan(draftFirst: boolean, prompt: string, conversation: DraftConversation, offered: ReadonlySet<string>, readOnly: readonly string[]): DraftPlan | undefined {
  if (!draftFirst || !offered.has('write_file') || isQuestion(prompt)) return undefined;
  if (conversation.messages.length !== 1 || conversation.messages[0]?.role !== 'user') return undefined;
  const files = (conversation.attachments ?? []).filter((a) => a.kind === 'file');
  if (files.length === 0 || files.some((a) => a.truncated)) return undefined;
  const shown = files.map((a) => canonicalPath(a.path));
  const writable = shown.filter((file) => languageOf(file) !== undefined && !looksLikeTest(file) && !isAcceptanceFile(readOnly, file));
  return writable.length === 1 ? { target: writable[0]!, shown } : undefined;
}

/**
 * The write a draft reply asks for: its code placed in the target (the functions it defines replace
 * the file's, else the block is the whole file: src/loop/code-answer.ts), as one `write_file` call
 * whose content a human approving it sees whole. None when the reply holds no code for the file or
 * its code changes nothing.
 */
export function draftWrite(reply: string, files: NamedFile[], target: string, id: string): ToolCall | undefined {
  const file = files.find((f) => f.path === target);
  if (!file || reply.length > MAX_REPLY_CHARS) return undefined;
  // Placed as the model-alone baseline places it, among the same files; only the target is written.
  const content = applyAnswer(reply, files).get(target);
  if (content === undefined || content === file.text) return undefined;
  return { id, name: 'write_file', input: { file_path: target, content } };
}
