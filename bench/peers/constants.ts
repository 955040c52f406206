/** The task's constants, with no Node.js import: workflow code (a Temporal sandbox) reads them too. */
export const TURNS = 20;
export const KILL_AT_TURN = 10;
export const FILE_BYTES = 4096;
export const FINAL_ANSWER = 'Read all the files.';
export const PROMPT = 'Read the files one by one with read_file, then say you are done.';
export const SYSTEM = 'You are a careful agent. Use the read_file tool when asked to read files.';
export const TOOL_DESCRIPTION = 'Read a text file of the workspace and return its content.';

export const fileName = (turn: number): string => `f${turn}.txt`;
