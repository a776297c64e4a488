// Request phrasings of the routing tools, cut by hand per split: 8 train, 6 validation and 2 test
// phrasings per tool ({x} = the argument value). Validation had 2 until the merge table showed that
// 2 phrasings rank merges unlike test (a specialist at 12.5 % on validation, 32.8 % on test: the
// tuning could not see what a merge lost); the 4 added ones change validation only — train and test
// streams draw from their own lists and are as before. A test phrasing never occurs in training; it
// may share the tool's cue word ("weather", "call", …), since a model cannot route on a cue it has
// never seen, but its wording is new. All are short (≤ 27 characters without the value) to keep
// a route8 prompt near 260 byte tokens.
import type { SplitLists } from '../splits';

export const ROUTING_TEMPLATES: Readonly<Record<string, SplitLists<string>>> = {
  weather: {
    train: ['weather in {x}?', '{x} weather?', 'is it raining in {x}?', 'forecast for {x}', 'how warm is {x}?', 'weather for {x} please', 'will it snow in {x}?', 'temperature in {x}?'],
    validation: ['{x} forecast today?', 'is it sunny in {x}?', 'how cold is it in {x}?', 'how is it outside in {x}?', 'is {x} cloudy today?', 'do I need a coat in {x}?'],
    test: ['what is the weather in {x}?', 'any rain in {x} today?'],
  },
  time: {
    train: ['time in {x}?', 'what time is it in {x}?', '{x} time?', 'local time in {x}', 'clock in {x}?', 'current time in {x}', 'hour in {x} now?', 'time zone of {x}?'],
    validation: ['what hour is it in {x}?', 'time now in {x}?', 'is it night yet in {x}?', 'which hour in {x}?', 'is it late in {x}?', 'is it morning in {x} yet?'],
    test: ['tell me the time in {x}', '{x} local time?'],
  },
  price: {
    train: ['price of {x}?', '{x} stock price?', 'quote for {x}', 'how much is {x} stock?', '{x} share price', 'what is {x} trading at?', 'stock quote {x}', 'current price of {x}'],
    validation: ['{x} price now?', 'quote on {x} please', 'cost of {x} shares?', 'what is {x} worth today?', 'how did {x} stock close?', 'last trade of {x}?'],
    test: ['how is {x} stock priced?', 'get the {x} quote'],
  },
  news: {
    train: ['news about {x}?', '{x} headlines', 'latest news on {x}', 'any news for {x}?', 'headlines for {x}', 'what is new with {x}?', '{x} news today', 'recent stories on {x}'],
    validation: ['news on {x} stock?', '{x} latest headlines?', 'anything new on {x}?', 'updates on {x} today', 'what happened with {x}?', 'press about {x}'],
    test: ['show me {x} news', 'top headlines about {x}'],
  },
  define: {
    train: ['define {x}', 'meaning of {x}?', 'what does {x} mean?', 'definition of {x}', '{x} meaning?', 'define the word {x}', 'explain the word {x}', 'what is meant by {x}?'],
    validation: ['what is the meaning of {x}?', '{x}: definition?', 'explain {x} to me', 'what is a {x}?', 'dictionary entry {x}', 'sense of the word {x}'],
    test: ['give me the meaning of {x}', 'how is {x} defined?'],
  },
  translate: {
    train: ['translate {x}', '{x} in Spanish?', 'Spanish for {x}?', 'how do you say {x} in Spanish?', 'translate {x} to Spanish', 'Spanish word for {x}', 'translation of {x}', 'put {x} into Spanish'],
    validation: ['Spanish version of {x}', 'translate the word {x}', 'render {x} in Spanish', 'convert {x} to Spanish', 'Spanish term for {x}?', '{x}, but in Spanish'],
    test: ['what is {x} in Spanish?', 'Spanish translation of {x}?'],
  },
  email: {
    train: ['email {x}', 'send an email to {x}', 'write to {x} by email', 'mail {x} please', 'email {x} about lunch', 'drop {x} an email', 'message {x} by email', 'compose an email to {x}'],
    validation: ['email {x} now', 'send {x} a mail', 'fire off an email to {x}', 'email a note to {x}', 'reach {x} by email', 'get an email to {x}'],
    test: ['shoot an email to {x}', 'please email {x} today'],
  },
  phone: {
    train: ['call {x}', 'phone {x}', 'ring {x} please', 'give {x} a call', 'dial {x}', 'phone {x} now', 'call {x} back', 'make a call to {x}'],
    validation: ['ring {x} up', 'please call {x}', 'telephone {x}', 'buzz {x} on the phone', 'get {x} on the line', 'phone call to {x}'],
    test: ['can you phone {x}?', 'place a call to {x}'],
  },
};

/** Joins the two requests of a two-call (route8-multi) task; per split, like the phrasings. */
export const ROUTING_JOINERS: SplitLists<string> = {
  train: ['{a} and {b}', '{a}, then {b}', '{a}; also {b}'],
  validation: ['{a} plus {b}'],
  test: ['{a}, and also {b}'],
};

/**
 * The first `k` train phrasings of every tool ({x} templates): what an SFT set limited to `k`
 * demonstrated phrasings shows (config `data.phrasings`). RL tasks keep all train phrasings, so the
 * rest are requests the model meets only through the checker's reward, never in a demonstration.
 */
export function demonstratedPhrasings(k: number): ReadonlySet<string> {
  if (!Number.isInteger(k) || k < 1) throw new Error(`demonstratedPhrasings: k must be a whole number ≥ 1, got ${k}`);
  return new Set(Object.values(ROUTING_TEMPLATES).flatMap((lists) => lists.train.slice(0, k)));
}
