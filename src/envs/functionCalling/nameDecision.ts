// Where an assistant turn's function names are fixed: the character just after the closing quote
// of the last call's "name" string. Tokens after that point cannot change which functions the turn
// called, so GRPO's component credit leaves function_choice out of their advantage (the argument
// value a small model guesses would otherwise add its own sampling noise to the routing signal).
//
// Conservative by construction: the point is given only for canonical calls, where "name" is the
// first key of every <tool_call> body (the chat template's order); any other shape returns null and
// the component is credited to the whole turn, as without component credit.
import { CLOSE, OPEN } from '../../tokenizer/toolCalls';

/** `<tool_call>`, optional whitespace, `{`, optional whitespace, `"name"`, `:`, then the opening quote of the value. */
const NAME_FIRST = /^\s*\{\s*"name"\s*:\s*"/;

/** Offset after the closing quote of the JSON string that opens at `from` (just past its opening quote); −1 if it never closes. */
function stringEnd(text: string, from: number, limit: number): number {
  for (let i = from; i < limit; i++) {
    if (text[i] === '\\') i++;
    else if (text[i] === '"') return i + 1;
  }
  return -1;
}

/**
 * Character offset in `text` after the last call's name string, or null when any <tool_call> block
 * does not start with a closed "name" string (or there is no call).
 */
export function functionNamesDecidedAt(text: string): number | null {
  let end: number | null = null;
  for (let open = text.indexOf(OPEN); open !== -1; open = text.indexOf(OPEN, open + OPEN.length)) {
    const bodyStart = open + OPEN.length;
    const close = text.indexOf(CLOSE, bodyStart);
    const limit = close === -1 ? text.length : close;
    const head = NAME_FIRST.exec(text.slice(bodyStart, limit));
    if (head === null) return null;
    const nameEnd = stringEnd(text, bodyStart + head[0].length, limit);
    if (nameEnd === -1) return null;
    end = nameEnd;
  }
  return end;
}
