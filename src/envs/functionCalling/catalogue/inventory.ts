// The catalogue's value pools as strings, per split, for the split audit: the forms in which a
// value appears in a request or an argument (a city's name, a stock's symbol and company, …).
// Languages, cuisines and currency names are left out of the word-level audit: they share words
// across pools ("Greek" cuisine, "Greek" language); the argument-level audit covers them.
import type { SplitLists } from '../../splits';
import { COUNTRIES, DISHES } from './lifestyle';
import { CITIES, PEOPLE, PHRASES, STOCKS } from './pools';
import { BODIES, DIRECTORIES, EVENT_TITLES, FILES, REMINDERS, SUBJECTS, TEXTS } from './productivity';
import { OPEN_REQUESTS } from './index';

function strings<T>(lists: SplitLists<T>, show: (item: T) => string[]): SplitLists<string> {
  return { train: lists.train.flatMap(show), validation: lists.validation.flatMap(show), test: lists.test.flatMap(show) };
}

/** Entity pools whose strings name one value (no cross-pool words), per split. */
export function catalogueEntityStrings(): Record<string, SplitLists<string>> {
  const same = (s: string) => [s];
  return {
    cities: strings(CITIES, (c) => [c.name]),
    stocks: strings(STOCKS, (s) => [s.symbol, s.company]),
    people: strings(PEOPLE, (p) => [p.email, p.phone]),
    phrases: strings(PHRASES, same),
    countries: strings(COUNTRIES, same),
    dishes: strings(DISHES, same),
    directories: strings(DIRECTORIES, same),
    files: strings(FILES, same),
    events: strings(EVENT_TITLES, same),
    reminders: strings(REMINDERS, same),
    subjects: strings(SUBJECTS, same),
    bodies: strings(BODIES, same),
    texts: strings(TEXTS, same),
    'open requests': strings(OPEN_REQUESTS, same),
  };
}
