/**
 * Named model profiles: settings a run takes under its own fields. A field the input gives wins over
 * the profile's (`modelSettings` and `attachments` field by field), so a profile is a set of defaults,
 * never a lock. Hosted-model runs name no profile and keep the plain defaults.
 */
export interface ModelProfile {
  description: string;
  finalAnswer: 'text' | 'tool';
  attachMentionedPaths: 'at' | 'plain' | 'off';
  modelSettings: { temperature?: number; maxOutputTokens?: number };
  attachments: { maxFiles: number; maxFileChars: number; maxTotalChars: number; imports?: boolean };
  /** Working habits for the system prompt, before the input's own `appendSystemPrompt` (both are kept). */
  guidance?: string;
  /** `draftFirst`: the first turn asks for the finished file, as the model alone would be asked. */
  draftFirst?: boolean;
  /** `disallowedTools`: tools the run does not offer the model. */
  disallowedTools?: readonly string[];
}

export const MODEL_PROFILES = {
  /**
   * A small model on a local server (Qwen2.5-Coder-1.5B on llama.cpp, an 8k context at about 30 prompt and 9 generated tokens a second on 2 cores): the files the
   * prompt names up front, a final answer it cannot leave as chat, low temperature, short replies,
   * and attachments that leave room in a small context.
   */
  'small-local': {
    description: 'a small local model: final_answer tool with tool_choice "required", plain paths attached, temperature 0.2, max_tokens 1024, attachments capped at 4 files and 12 000 characters (with the local files the attached ones import), whole-file writes of small files, renames by one sed command, and the code\'s own examples run before the answer, a first turn that drafts the attached file as the model alone would, and no subagent or background_run tool',
    finalAnswer: 'tool',
    attachMentionedPaths: 'plain',
    modelSettings: { temperature: 0.2, maxOutputTokens: 1024 },
    // A small model guesses what `require('./settings')` holds rather than read it: the files an attached file imports come with it.
    attachments: { maxFiles: 4, maxFileChars: 8_000, maxTotalChars: 12_000, imports: true },
    // Asked alone for the finished function, the 1.5B model solved 15 of 21 tasks; the same model's
    // first code inside the loop, with tools and the system prompt, was worse (EVALS.md).
    draftFirst: true,
    // Offered subagents and background jobs, the 1.5B model handed a rename to a read-only
    // code-review subagent with a 1,000-token budget, five times, and started `node test.js` in the
    // background before anything else (EVALS.md). Two tool definitions fewer in its 16k context too.
    disallowedTools: ['subagent', 'background_run'],
    // A 1.5B model's piecewise edit_file calls leave half-edited bodies behind; one whole-file
    // write of a small file needs no old_text to match. Its own examples catch a wrong body early;
    // after a failing example it would otherwise edit the example.
    guidance:
      'To change a small file (under about 80 lines), call write_file with its whole new content instead of edit_file, keeping everything you do not change (other functions, imports, module.exports) as it is. Before final_answer, run the code\'s own examples or tests where it has them: `python3 -m doctest FILE` for examples in Python docstrings, `node test.js` or the test command the task names. When they fail, fix the code, never the tests or examples. To rename a name in every file, one bash command does it: `grep -rlw OLD --exclude-dir=.git --exclude-dir=node_modules . | xargs -r sed -i \'s/\\bOLD\\b/NEW/g\'` with the two names in place of OLD and NEW; then grep for the old name to check that none is left.',
  },
} as const satisfies Record<string, ModelProfile>;

export type ProfileName = keyof typeof MODEL_PROFILES;
export const PROFILE_NAMES = Object.keys(MODEL_PROFILES) as ProfileName[];

export function isProfileName(name: unknown): name is ProfileName {
  return typeof name === 'string' && Object.prototype.hasOwnProperty.call(MODEL_PROFILES, name);
}

export function unknownProfileMessage(name: unknown): string {
  return `unknown profile ${JSON.stringify(name)}; known profiles: ${PROFILE_NAMES.join(', ')}`;
}

const isObject = (value: unknown): value is Record<string, unknown> => typeof value === 'object' && value !== null && !Array.isArray(value);

/**
 * The input with its profile's settings under its own: what the input gives wins. An input without
 * a known `profile` comes back as it was (an unknown one is the schema's error to report).
 */
export function withProfile(raw: Record<string, unknown>): Record<string, unknown> {
  if (!isProfileName(raw.profile)) return raw;
  const profile: ModelProfile = MODEL_PROFILES[raw.profile];
  return {
    finalAnswer: profile.finalAnswer,
    attachMentionedPaths: profile.attachMentionedPaths,
    ...(profile.draftFirst ? { draftFirst: true } : {}),
    ...(profile.disallowedTools ? { disallowedTools: [...profile.disallowedTools] } : {}),
    ...raw,
    ...(profile.guidance ? { appendSystemPrompt: [profile.guidance, typeof raw.appendSystemPrompt === 'string' ? raw.appendSystemPrompt : ''].filter(Boolean).join('\n\n') } : {}),
    modelSettings: { ...profile.modelSettings, ...(isObject(raw.modelSettings) ? raw.modelSettings : {}) },
    attachments: { ...profile.attachments, ...(isObject(raw.attachments) ? raw.attachments : {}) },
  };
}
