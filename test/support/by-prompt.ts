import type { Scenario, ScriptStep } from './scripted-model-server';
import { isPromptSent } from './prompt-sent';

/**
 * One scenario for a run and its subagents, which share a model name: each request is answered
 * from the script of its conversation's first user message (the run's prompt or the subagent's task,
 * after the run context the default system prompt comes with).
 */
export function byPrompt(scripts: Record<string, ScriptStep[] | ((index: number) => ScriptStep | undefined)>): Scenario {
  const served = new Map<string, number>();
  return (body: { messages: Array<{ role: string; content: unknown }> }) => {
    const sent = String(body.messages.find((m) => m.role === 'user')?.content ?? '');
    const prompt = Object.keys(scripts).find((key) => isPromptSent(sent, key)) ?? sent;
    const script = scripts[prompt];
    if (!script) return { status: 500, errorMessage: `byPrompt: no script for prompt "${prompt}"` };
    const index = served.get(prompt) ?? 0;
    served.set(prompt, index + 1);
    return typeof script === 'function' ? script(index) : script[index];
  };
}
