// Value pools and phrasing helpers shared by the API catalogue: realistic cities, tickers, people,
// dates and times, and the template filler that turns sampled values into varied requests.
import type { Rng } from '../../../util/rng';
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

export const CITIES: readonly City[] = [
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
];

/** Companies with their ticker symbol and listing exchange. */
export const STOCKS: readonly { symbol: string; company: string; exchange: 'NASDAQ' | 'NYSE' | 'LSE' }[] = [
  { symbol: 'AAPL', company: 'Apple', exchange: 'NASDAQ' },
  { symbol: 'MSFT', company: 'Microsoft', exchange: 'NASDAQ' },
  { symbol: 'GOOGL', company: 'Alphabet', exchange: 'NASDAQ' },
  { symbol: 'AMZN', company: 'Amazon', exchange: 'NASDAQ' },
  { symbol: 'NVDA', company: 'Nvidia', exchange: 'NASDAQ' },
  { symbol: 'TSLA', company: 'Tesla', exchange: 'NASDAQ' },
  { symbol: 'KO', company: 'Coca-Cola', exchange: 'NYSE' },
  { symbol: 'JPM', company: 'JPMorgan Chase', exchange: 'NYSE' },
  { symbol: 'DIS', company: 'Disney', exchange: 'NYSE' },
  { symbol: 'NKE', company: 'Nike', exchange: 'NYSE' },
  { symbol: 'BP', company: 'BP', exchange: 'LSE' },
  { symbol: 'HSBA', company: 'HSBC', exchange: 'LSE' },
];

export const CURRENCIES: readonly { code: string; name: string }[] = [
  { code: 'USD', name: 'US dollars' },
  { code: 'EUR', name: 'euros' },
  { code: 'GBP', name: 'British pounds' },
  { code: 'JPY', name: 'Japanese yen' },
  { code: 'CHF', name: 'Swiss francs' },
  { code: 'CAD', name: 'Canadian dollars' },
  { code: 'AUD', name: 'Australian dollars' },
  { code: 'INR', name: 'Indian rupees' },
];

export const PEOPLE: readonly { name: string; email: string; phone: string }[] = [
  { name: 'Alice', email: 'alice@example.com', phone: '+1-555-0101' },
  { name: 'Bob', email: 'bob@example.com', phone: '+1-555-0102' },
  { name: 'Carla', email: 'carla@example.org', phone: '+44-20-5550-0103' },
  { name: 'Deepak', email: 'deepak@example.net', phone: '+91-555-0104' },
  { name: 'Emma', email: 'emma@example.com', phone: '+1-555-0105' },
  { name: 'Farid', email: 'farid@example.org', phone: '+33-1-5550-0106' },
  { name: 'Grace', email: 'grace@example.com', phone: '+1-555-0107' },
  { name: 'Hiro', email: 'hiro@example.jp', phone: '+81-3-5550-0108' },
];

export const LANGUAGES: readonly string[] = ['French', 'Spanish', 'German', 'Japanese', 'Italian', 'Portuguese', 'Korean', 'Dutch'];

export const PHRASES: readonly string[] = [
  'Where is the train station?',
  'Thank you very much',
  'How much does this cost?',
  'Good morning, everyone',
  'I would like a coffee, please',
  'See you tomorrow',
  'The meeting is cancelled',
  'Happy birthday',
];

export const CUISINES: readonly string[] = ['Italian', 'Japanese', 'Mexican', 'Indian', 'Thai', 'vegan', 'French', 'Korean'];

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

export function sampleDate(rng: Rng): SampledDate {
  const year = rng.int(2025, 2026);
  const month = rng.int(1, 12);
  const day = rng.int(1, 28);
  const mm = String(month).padStart(2, '0');
  const dd = String(day).padStart(2, '0');
  const iso = `${year}-${mm}-${dd}`;
  const us = `${MONTHS[month - 1]} ${day}, ${year}`;
  const eu = `${day} ${MONTHS[month - 1]} ${year}`;
  const spoken = rng.pick([us, eu, iso]);
  return { iso, spoken, accepted: [iso, us, eu, `${mm}/${dd}/${year}`] };
}

/** A clock time as the API wants it (HH:MM, 24 h) and as spoken. */
export function sampleTime(rng: Rng): { hhmm: string; spoken: string; accepted: string[] } {
  const hour = rng.int(7, 20);
  const minute = rng.pick([0, 15, 30, 45]);
  const hhmm = `${String(hour).padStart(2, '0')}:${String(minute).padStart(2, '0')}`;
  const h12 = hour % 12 === 0 ? 12 : hour % 12;
  const ampm = `${h12}:${String(minute).padStart(2, '0')} ${hour < 12 ? 'AM' : 'PM'}`;
  return { hhmm, spoken: rng.pick([hhmm, ampm]), accepted: [hhmm, ampm] };
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

/** Picks a template and fills it; templates start with a common word so they can be joined. */
export function phrase(rng: Rng, templates: readonly string[], vars: Record<string, string | number>): string {
  return fill(rng.pick(templates), vars);
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
