// Value pools and phrasing helpers shared by the API catalogue: realistic cities, tickers, people,
// dates and times, and the template filler that turns sampled values into varied requests.
// Splits (src/envs/splits.ts), disjoint by construction:
// - entity pools (cities, stocks, currencies, people, languages, phrases, cuisines, and each
//   function's own lists) are cut 70/15/15 into fixed parts; a task of split S picks from S's part;
// - sentence templates are cut by position (phrase(): the last → test, the one before → validation);
// - dates: day of month 1-20 train, 21-24 validation, 25-28 test; clock times and integers from
//   ranges of ≥ 30 values are cut by a fixed hash of the value (splitInt, TIMES);
// - shared by every split, by design: enum values the schema lists, small counts (< 30 possible
//   values: passengers, nights, factorial n …) and short optional clause fragments (" in miles").
// Simulated tool RESULTS draw from the train parts only, so no test value reaches a train trajectory.
import { hashString } from '../../../util/seeds';
import type { Rng } from '../../../util/rng';
import { cutByPosition, partitionPool, type Split, type SplitLists } from '../../splits';
import type { AcceptableValues } from '../types';

/** A city with the country it is in (both forms are accepted as a location). */
export interface City {
  /** City name as users write it. */
  name: string;
  /** Country, accepted as "City, Country". */
  country: string;
  /** IANA time zone, for the local-time simulator. */
  timezone: string;
}

/** Every catalogue city (48); tasks use the split parts in CITIES. */
export const ALL_CITIES: readonly City[] = [
  { name: 'Paris', country: 'France', timezone: 'Europe/Paris' },
  { name: 'Tokyo', country: 'Japan', timezone: 'Asia/Tokyo' },
  { name: 'New York', country: 'USA', timezone: 'America/New_York' },
  { name: 'London', country: 'UK', timezone: 'Europe/London' },
  { name: 'Berlin', country: 'Germany', timezone: 'Europe/Berlin' },
  { name: 'Sydney', country: 'Australia', timezone: 'Australia/Sydney' },
  { name: 'Toronto', country: 'Canada', timezone: 'America/Toronto' },
  { name: 'Madrid', country: 'Spain', timezone: 'Europe/Madrid' },
  { name: 'Rome', country: 'Italy', timezone: 'Europe/Rome' },
  { name: 'Seoul', country: 'South Korea', timezone: 'Asia/Seoul' },
  { name: 'Mumbai', country: 'India', timezone: 'Asia/Kolkata' },
  { name: 'Cairo', country: 'Egypt', timezone: 'Africa/Cairo' },
  { name: 'Mexico City', country: 'Mexico', timezone: 'America/Mexico_City' },
  { name: 'Sao Paulo', country: 'Brazil', timezone: 'America/Sao_Paulo' },
  { name: 'Nairobi', country: 'Kenya', timezone: 'Africa/Nairobi' },
  { name: 'Oslo', country: 'Norway', timezone: 'Europe/Oslo' },
  { name: 'Lisbon', country: 'Portugal', timezone: 'Europe/Lisbon' },
  { name: 'Singapore', country: 'Singapore', timezone: 'Asia/Singapore' },
  { name: 'Chicago', country: 'USA', timezone: 'America/Chicago' },
  { name: 'Amsterdam', country: 'Netherlands', timezone: 'Europe/Amsterdam' },
  { name: 'Vienna', country: 'Austria', timezone: 'Europe/Vienna' },
  { name: 'Buenos Aires', country: 'Argentina', timezone: 'America/Argentina/Buenos_Aires' },
  { name: 'Dublin', country: 'Ireland', timezone: 'Europe/Dublin' },
  { name: 'Prague', country: 'Czechia', timezone: 'Europe/Prague' },
  { name: 'Warsaw', country: 'Poland', timezone: 'Europe/Warsaw' },
  { name: 'Athens', country: 'Greece', timezone: 'Europe/Athens' },
  { name: 'Istanbul', country: 'Turkey', timezone: 'Europe/Istanbul' },
  { name: 'Dubai', country: 'UAE', timezone: 'Asia/Dubai' },
  { name: 'Bangkok', country: 'Thailand', timezone: 'Asia/Bangkok' },
  { name: 'Jakarta', country: 'Indonesia', timezone: 'Asia/Jakarta' },
  { name: 'Manila', country: 'Philippines', timezone: 'Asia/Manila' },
  { name: 'Hanoi', country: 'Vietnam', timezone: 'Asia/Bangkok' },
  { name: 'Shanghai', country: 'China', timezone: 'Asia/Shanghai' },
  { name: 'Osaka', country: 'Japan', timezone: 'Asia/Tokyo' },
  { name: 'Auckland', country: 'New Zealand', timezone: 'Pacific/Auckland' },
  { name: 'Melbourne', country: 'Australia', timezone: 'Australia/Melbourne' },
  { name: 'Vancouver', country: 'Canada', timezone: 'America/Vancouver' },
  { name: 'Seattle', country: 'USA', timezone: 'America/Los_Angeles' },
  { name: 'Denver', country: 'USA', timezone: 'America/Denver' },
  { name: 'Lima', country: 'Peru', timezone: 'America/Lima' },
  { name: 'Bogota', country: 'Colombia', timezone: 'America/Bogota' },
  { name: 'Santiago', country: 'Chile', timezone: 'America/Santiago' },
  { name: 'Lagos', country: 'Nigeria', timezone: 'Africa/Lagos' },
  { name: 'Accra', country: 'Ghana', timezone: 'Africa/Accra' },
  { name: 'Casablanca', country: 'Morocco', timezone: 'Africa/Casablanca' },
  { name: 'Stockholm', country: 'Sweden', timezone: 'Europe/Stockholm' },
  { name: 'Helsinki', country: 'Finland', timezone: 'Europe/Helsinki' },
  { name: 'Zurich', country: 'Switzerland', timezone: 'Europe/Zurich' },
];

/** The cities of each split. */
export const CITIES: SplitLists<City> = partitionPool(ALL_CITIES, 'catalogue/city', (c) => c.name);

/** A listed company. */
export interface Stock {
  symbol: string;
  company: string;
  exchange: 'NASDAQ' | 'NYSE' | 'LSE';
}

/** Companies with their ticker symbol and listing exchange. */
export const STOCKS: SplitLists<Stock> = partitionPool<Stock>([
  { symbol: 'AAPL', company: 'Apple', exchange: 'NASDAQ' },
  { symbol: 'MSFT', company: 'Microsoft', exchange: 'NASDAQ' },
  { symbol: 'GOOGL', company: 'Alphabet', exchange: 'NASDAQ' },
  { symbol: 'AMZN', company: 'Amazon', exchange: 'NASDAQ' },
  { symbol: 'NVDA', company: 'Nvidia', exchange: 'NASDAQ' },
  { symbol: 'TSLA', company: 'Tesla', exchange: 'NASDAQ' },
  { symbol: 'NFLX', company: 'Netflix', exchange: 'NASDAQ' },
  { symbol: 'ADBE', company: 'Adobe', exchange: 'NASDAQ' },
  { symbol: 'INTC', company: 'Intel', exchange: 'NASDAQ' },
  { symbol: 'CSCO', company: 'Cisco', exchange: 'NASDAQ' },
  { symbol: 'PEP', company: 'PepsiCo', exchange: 'NASDAQ' },
  { symbol: 'SBUX', company: 'Starbucks', exchange: 'NASDAQ' },
  { symbol: 'KO', company: 'Coca-Cola', exchange: 'NYSE' },
  { symbol: 'JPM', company: 'JPMorgan Chase', exchange: 'NYSE' },
  { symbol: 'DIS', company: 'Disney', exchange: 'NYSE' },
  { symbol: 'NKE', company: 'Nike', exchange: 'NYSE' },
  { symbol: 'WMT', company: 'Walmart', exchange: 'NYSE' },
  { symbol: 'MCD', company: "McDonald's", exchange: 'NYSE' },
  { symbol: 'IBM', company: 'IBM', exchange: 'NYSE' },
  { symbol: 'BA', company: 'Boeing', exchange: 'NYSE' },
  { symbol: 'XOM', company: 'ExxonMobil', exchange: 'NYSE' },
  { symbol: 'PFE', company: 'Pfizer', exchange: 'NYSE' },
  { symbol: 'V', company: 'Visa', exchange: 'NYSE' },
  { symbol: 'BP', company: 'BP', exchange: 'LSE' },
  { symbol: 'HSBA', company: 'HSBC', exchange: 'LSE' },
  { symbol: 'ULVR', company: 'Unilever', exchange: 'LSE' },
  { symbol: 'AZN', company: 'AstraZeneca', exchange: 'LSE' },
  { symbol: 'BARC', company: 'Barclays', exchange: 'LSE' },
  { symbol: 'TSCO', company: 'Tesco', exchange: 'LSE' },
  { symbol: 'VOD', company: 'Vodafone', exchange: 'LSE' },
], 'catalogue/stock', (s) => s.symbol);

export const CURRENCIES: SplitLists<{ code: string; name: string }> = partitionPool([
  { code: 'USD', name: 'US dollars' },
  { code: 'EUR', name: 'euros' },
  { code: 'GBP', name: 'British pounds' },
  { code: 'JPY', name: 'Japanese yen' },
  { code: 'CHF', name: 'Swiss francs' },
  { code: 'CAD', name: 'Canadian dollars' },
  { code: 'AUD', name: 'Australian dollars' },
  { code: 'INR', name: 'Indian rupees' },
  { code: 'CNY', name: 'Chinese yuan' },
  { code: 'SEK', name: 'Swedish kronor' },
  { code: 'NOK', name: 'Norwegian kroner' },
  { code: 'NZD', name: 'New Zealand dollars' },
  { code: 'MXN', name: 'Mexican pesos' },
  { code: 'BRL', name: 'Brazilian reais' },
  { code: 'ZAR', name: 'South African rand' },
  { code: 'HKD', name: 'Hong Kong dollars' },
], 'catalogue/currency', (c) => c.code);

export interface Person {
  name: string;
  email: string;
  phone: string;
}

export const PEOPLE: SplitLists<Person> = partitionPool<Person>([
  { name: 'Alice', email: 'alice@example.com', phone: '+1-555-0101' },
  { name: 'Bob', email: 'bob@example.com', phone: '+1-555-0102' },
  { name: 'Carla', email: 'carla@example.org', phone: '+44-20-5550-0103' },
  { name: 'Deepak', email: 'deepak@example.net', phone: '+91-555-0104' },
  { name: 'Emma', email: 'emma@example.com', phone: '+1-555-0105' },
  { name: 'Farid', email: 'farid@example.org', phone: '+33-1-5550-0106' },
  { name: 'Grace', email: 'grace@example.com', phone: '+1-555-0107' },
  { name: 'Hiro', email: 'hiro@example.jp', phone: '+81-3-5550-0108' },
  { name: 'Ines', email: 'ines@example.pt', phone: '+351-555-0109' },
  { name: 'Jamal', email: 'jamal@example.com', phone: '+1-555-0110' },
  { name: 'Kira', email: 'kira@example.de', phone: '+49-30-5550-0111' },
  { name: 'Liam', email: 'liam@example.ie', phone: '+353-1-555-0112' },
  { name: 'Mei', email: 'mei@example.cn', phone: '+86-10-5550-0113' },
  { name: 'Nadia', email: 'nadia@example.org', phone: '+1-555-0114' },
  { name: 'Oscar', email: 'oscar@example.se', phone: '+46-8-5550-0115' },
  { name: 'Priya', email: 'priya@example.in', phone: '+91-555-0116' },
  { name: 'Quentin', email: 'quentin@example.fr', phone: '+33-1-5550-0117' },
  { name: 'Rosa', email: 'rosa@example.es', phone: '+34-91-555-0118' },
  { name: 'Sven', email: 'sven@example.no', phone: '+47-555-0119' },
  { name: 'Tomas', email: 'tomas@example.cz', phone: '+420-555-0120' },
], 'catalogue/person', (p) => p.name);

export const LANGUAGES: SplitLists<string> = partitionPool(
  ['French', 'Spanish', 'German', 'Japanese', 'Italian', 'Portuguese', 'Korean', 'Dutch', 'Swedish', 'Polish', 'Turkish', 'Greek', 'Hindi', 'Arabic', 'Chinese', 'Finnish'],
  'catalogue/language',
);

export const PHRASES: SplitLists<string> = partitionPool([
  'Where is the train station?',
  'Thank you very much',
  'How much does this cost?',
  'Good morning, everyone',
  'I would like a coffee, please',
  'See you tomorrow',
  'The meeting is cancelled',
  'Happy birthday',
  'Where can I buy a ticket?',
  'The museum opens at nine',
  'Could you speak more slowly?',
  'I am allergic to peanuts',
  'Is this seat free?',
  'We are lost',
  'The bill, please',
  'My phone battery is dead',
  'Welcome to our home',
  'Please close the window',
  'It is raining again',
  'I need a doctor',
], 'catalogue/phrase');

export const CUISINES: SplitLists<string> = partitionPool(
  ['Italian', 'Japanese', 'Mexican', 'Indian', 'Thai', 'vegan', 'French', 'Korean', 'Greek', 'Lebanese', 'Ethiopian', 'Vietnamese', 'Turkish', 'Peruvian'],
  'catalogue/cuisine',
);

export const MONTHS = ['January', 'February', 'March', 'April', 'May', 'June', 'July', 'August', 'September', 'October', 'November', 'December'];

/** A date in the form the API wants (ISO) and the ways a user might say it. */
export interface SampledDate {
  /** YYYY-MM-DD. */
  iso: string;
  /** How the request words it (e.g. "March 14, 2026"). */
  spoken: string;
  /** Every accepted spelling (ISO first). */
  accepted: string[];
}

/** Days of the month per split: a test date never occurs in training. */
const DAYS: Readonly<Record<Split, readonly [number, number]>> = { train: [1, 20], validation: [21, 24], test: [25, 28] };

export function sampleDate(rng: Rng, split: Split): SampledDate {
  const year = rng.int(2025, 2026);
  const month = rng.int(1, 12);
  const day = rng.int(...DAYS[split]);
  const mm = String(month).padStart(2, '0');
  const dd = String(day).padStart(2, '0');
  const iso = `${year}-${mm}-${dd}`;
  const us = `${MONTHS[month - 1]} ${day}, ${year}`;
  const eu = `${day} ${MONTHS[month - 1]} ${year}`;
  const spoken = rng.pick([us, eu, iso]);
  return { iso, spoken, accepted: [iso, us, eu, `${mm}/${dd}/${year}`] };
}

/** Clock times 07:00 … 20:45 in quarter hours, cut per split. */
const TIMES: SplitLists<string> = partitionPool(
  Array.from({ length: 14 * 4 }, (_, i) => `${String(7 + Math.floor(i / 4)).padStart(2, '0')}:${String(15 * (i % 4)).padStart(2, '0')}`),
  'catalogue/time',
);

/** A clock time as the API wants it (HH:MM, 24 h) and as spoken. */
export function sampleTime(rng: Rng, split: Split): { hhmm: string; spoken: string; accepted: string[] } {
  const hhmm = rng.pick(TIMES[split]);
  const [hour, minute] = hhmm.split(':').map(Number);
  const h12 = hour % 12 === 0 ? 12 : hour % 12;
  const ampm = `${h12}:${String(minute).padStart(2, '0')} ${hour < 12 ? 'AM' : 'PM'}`;
  return { hhmm, spoken: rng.pick([hhmm, ampm]), accepted: [hhmm, ampm] };
}

/** Integer ranges with at least this many values are cut per split; smaller counts are shared. */
export const MIN_SPLIT_RANGE = 30;

/** The split an integer belongs to (a fixed hash of the value: 70 / 15 / 15 %). */
export function splitOfInt(value: number): Split {
  const bucket = hashString(`int/${value}`) % 100;
  return bucket < 70 ? 'train' : bucket < 85 ? 'validation' : 'test';
}

/**
 * Uniform integer in [lo, hi] belonging to `split` (splitOfInt) when the range has ≥ MIN_SPLIT_RANGE
 * values, so a test amount never occurs in training; any integer of a smaller range (shared).
 */
export function splitInt(rng: Rng, split: Split, lo: number, hi: number): number {
  if (hi - lo + 1 < MIN_SPLIT_RANGE) return rng.int(lo, hi);
  for (;;) {
    const v = rng.int(lo, hi);
    if (splitOfInt(v) === split) return v; // ≥ 15 % of any range this large: a handful of draws
  }
}

/** A fixed-point amount with `digits` decimals in [lo, hi], cut per split like splitInt (on its smallest unit). */
export function splitAmount(rng: Rng, split: Split, lo: number, hi: number, digits = 2): number {
  const f = 10 ** digits;
  return splitInt(rng, split, Math.ceil(lo * f), Math.floor(hi * f)) / f;
}

/** Acceptable spellings of a city used as a location. */
export function cityAccepted(city: City): AcceptableValues {
  return [city.name, `${city.name}, ${city.country}`];
}

/** Replaces {key} placeholders; every placeholder in the template must have a value. */
export function fill(template: string, vars: Record<string, string | number>): string {
  return template.replace(/\{(\w+)\}/g, (_, key: string) => {
    if (!(key in vars)) throw new Error(`template placeholder {${key}} has no value in: ${template}`);
    return String(vars[key]);
  });
}

/** The phrasings of `split` among a sentence template list, cut by position (last → test, the one before → validation, the rest → train). */
export function phrasingsOf(templates: readonly string[], split: Split): readonly string[] {
  return cutByPosition(templates, `catalogue phrasings "${templates[0]}"`)[split];
}

/** Every phrasing list phrase() has cut (keyed by its text): the split audit reads them (src/eval/splitDisjointness.test.ts). */
const PHRASING_LISTS = new Map<string, readonly string[]>();

/** The phrasing lists the catalogue has used so far in this process (generate tasks of every function first). */
export function phrasingListsUsed(): readonly (readonly string[])[] {
  return [...PHRASING_LISTS.values()];
}

/** Picks one of the split's phrasings and fills it; templates start with a common word so they can be joined. */
export function phrase(rng: Rng, split: Split, templates: readonly string[], vars: Record<string, string | number>): string {
  const key = templates.join('\u0001');
  if (!PHRASING_LISTS.has(key)) PHRASING_LISTS.set(key, templates);
  return fill(rng.pick(phrasingsOf(templates, split)), vars);
}

/** Rounds to `digits` decimals (simulated results look like real API output). */
export function round(x: number, digits = 2): number {
  const f = 10 ** digits;
  return Math.round(x * f) / f;
}

/** Either mentions an optional value (returned) or leaves it to the default (null), 50/50. */
export function maybe<T>(rng: Rng, value: () => T): T | null {
  return rng.next() < 0.5 ? value() : null;
}
