// Value pools of the routing task set: four value types (city, ticker, word, person), each ≥ 100
// real-looking values, short enough for a byte-level model (≤ 12 characters). Each pool is cut once
// into train / validation / test parts (70 / 15 / 15 %, src/envs/splits.ts): a test value never
// occurs in a training or SFT request. The pools are pairwise disjoint (no "Sydney" the city and
// "Sydney" the person), checked in routingTask.test.ts, so a value names its type unambiguously.
import { partitionPool, type SplitLists } from '../splits';

/** The value types of routing arguments; each is the argument type of exactly two route8 tools. */
export type RoutingValueType = 'city' | 'ticker' | 'word' | 'person';

const CITIES = [
  'Paris', 'Tokyo', 'Oslo', 'Rome', 'Lima', 'Cairo', 'Delhi', 'Seoul', 'Berlin', 'Madrid', 'Dublin', 'Vienna', 'Prague', 'Boston',
  'Denver', 'Miami', 'Quito', 'Nairobi', 'London', 'Lisbon', 'Athens', 'Warsaw', 'Munich', 'Zurich', 'Geneva', 'Milan', 'Naples',
  'Venice', 'Seville', 'Porto', 'Bilbao', 'Lyon', 'Marseille', 'Brussels', 'Antwerp', 'Amsterdam', 'Utrecht', 'Hamburg', 'Cologne',
  'Frankfurt', 'Stockholm', 'Helsinki', 'Copenhagen', 'Bergen', 'Riga', 'Tallinn', 'Vilnius', 'Krakow', 'Budapest', 'Bucharest',
  'Belgrade', 'Zagreb', 'Istanbul', 'Ankara', 'Beirut', 'Amman', 'Dubai', 'Doha', 'Riyadh', 'Tehran', 'Karachi', 'Lahore', 'Mumbai',
  'Chennai', 'Kolkata', 'Dhaka', 'Colombo', 'Kathmandu', 'Bangkok', 'Hanoi', 'Manila', 'Jakarta', 'Singapore', 'Beijing', 'Shanghai',
  'Shenzhen', 'Taipei', 'Osaka', 'Kyoto', 'Busan', 'Perth', 'Adelaide', 'Brisbane', 'Auckland', 'Toronto', 'Montreal', 'Vancouver',
  'Calgary', 'Ottawa', 'Chicago', 'Seattle', 'Portland', 'Phoenix', 'Dallas', 'Houston', 'Atlanta', 'Detroit', 'Memphis', 'Nashville',
  'Orlando', 'Tampa', 'Havana', 'Bogota', 'Caracas', 'Santiago', 'Montevideo', 'Recife', 'Accra', 'Lagos', 'Dakar', 'Tunis', 'Algiers',
  'Rabat', 'Casablanca', 'Kampala', 'Kigali', 'Lusaka', 'Harare', 'Luanda', 'Durban', 'Glasgow', 'Edinburgh', 'Cardiff', 'Belfast',
  'Marrakesh', 'Valencia', 'Malaga', 'Turin', 'Bologna', 'Palermo', 'Dresden', 'Leipzig', 'Stuttgart', 'Gdansk', 'Minsk', 'Kyiv',
  'Odesa', 'Tbilisi', 'Yerevan', 'Baku', 'Almaty', 'Tashkent', 'Ulaanbaatar', 'Cebu', 'Hobart', 'Darwin', 'Winnipeg',
];

const TICKERS = [
  'AAPL', 'MSFT', 'GOOG', 'AMZN', 'NVDA', 'META', 'TSLA', 'IBM', 'INTC', 'ORCL', 'NFLX', 'KO', 'DIS', 'PEP', 'CSCO', 'ADBE', 'CRM',
  'QCOM', 'TXN', 'AMD', 'MU', 'AVGO', 'PYPL', 'SBUX', 'NKE', 'MCD', 'WMT', 'COST', 'HD', 'LOW', 'TGT', 'JPM', 'BAC', 'WFC', 'GS',
  'MS', 'AXP', 'MA', 'BA', 'CAT', 'DE', 'GE', 'MMM', 'HON', 'LMT', 'RTX', 'UPS', 'FDX', 'XOM', 'CVX', 'COP', 'SLB', 'PFE', 'MRK',
  'JNJ', 'ABBV', 'LLY', 'BMY', 'AMGN', 'GILD', 'UNH', 'CVS', 'CI', 'VZ', 'TMUS', 'CMCSA', 'CHTR', 'GM', 'TM', 'HMC', 'SONY', 'UBER',
  'LYFT', 'ABNB', 'SNAP', 'PINS', 'SHOP', 'ZM', 'DOCU', 'ROKU', 'SPOT', 'TWLO', 'NET', 'DDOG', 'SNOW', 'PLTR', 'CRWD', 'OKTA',
  'MDB', 'TEAM', 'WDAY', 'NOW', 'INTU', 'ADP', 'ACN', 'IBKR', 'SCHW', 'BLK', 'ETSY', 'EBAY', 'BKNG', 'EXPE', 'MAR', 'HLT', 'DAL',
  'UAL', 'AAL', 'LUV', 'CCL', 'RCL', 'KHC', 'GIS', 'HSY', 'MDLZ', 'CL', 'PG', 'KMB', 'EL', 'ULTA', 'LULU', 'ANF', 'DG', 'DLTR', 'KR',
  'SYY', 'ADSK', 'ANSS', 'CDNS', 'SNPS', 'KLAC', 'LRCX', 'AMAT', 'ASML', 'TSM', 'BABA', 'JD', 'BIDU', 'NTES', 'SE', 'MELI',
];

const WORDS = [
  'apple', 'river', 'light', 'stone', 'dream', 'cloud', 'music', 'bridge', 'forest', 'honey', 'ocean', 'garden', 'candle', 'window',
  'mirror', 'ladder', 'pillow', 'harbor', 'meadow', 'valley', 'canyon', 'glacier', 'island', 'desert', 'summit', 'orchard', 'lantern',
  'compass', 'anchor', 'feather', 'pebble', 'thunder', 'whisper', 'shadow', 'marble', 'velvet', 'copper', 'silver', 'timber', 'harvest',
  'journey', 'freedom', 'courage', 'wisdom', 'silence', 'harmony', 'balance', 'gravity', 'rhythm', 'puzzle', 'riddle', 'fable',
  'legend', 'saga', 'poem', 'verse', 'chorus', 'melody', 'canvas', 'sketch', 'statue', 'temple', 'castle', 'cottage', 'village',
  'market', 'bakery', 'kettle', 'saucer', 'basket', 'blanket', 'button', 'needle', 'thread', 'ribbon', 'jacket', 'helmet', 'shield',
  'arrow', 'saddle', 'wagon', 'rocket', 'planet', 'comet', 'meteor', 'galaxy', 'nebula', 'crystal', 'ember', 'blaze', 'frost',
  'breeze', 'tide', 'coral', 'lagoon', 'reef', 'walrus', 'falcon', 'otter', 'badger', 'beaver', 'panther', 'sparrow', 'tulip', 'lotus',
  'cactus', 'maple', 'willow', 'acorn', 'nectar', 'ginger', 'pepper', 'almond', 'walnut', 'biscuit', 'noodle', 'pickle', 'custard',
  'humble', 'brave', 'gentle', 'vivid', 'fragile', 'ancient', 'hollow', 'eager', 'clever', 'serene', 'rustic', 'sturdy', 'nimble',
];

const PEOPLE = [
  'Maria', 'Kenji', 'Amara', 'Lars', 'Priya', 'Omar', 'Sofia', 'Diego', 'Aiko', 'Noah', 'Leila', 'Ivan', 'Chloe', 'Mateo', 'Nadia',
  'Felix', 'Yuki', 'Ana', 'Tomas', 'Zara', 'Hugo', 'Ines', 'Ravi', 'Mei', 'Karl', 'Lucia', 'Elif', 'Jonas', 'Freya', 'Kofi', 'Anya',
  'Marco', 'Sana', 'Pablo', 'Hana', 'Oskar', 'Layla', 'Tariq', 'Elena', 'Bruno', 'Greta', 'Arjun', 'Nora', 'Emil', 'Rosa', 'Kwame',
  'Ingrid', 'Hassan', 'Clara', 'Viktor', 'Aisha', 'Rafael', 'Olga', 'Samir', 'Julia', 'Tobias', 'Keiko', 'Andre', 'Fatima', 'Liam',
  'Yara', 'Mikko', 'Daria', 'Emeka', 'Selin', 'Nikos', 'Astrid', 'Jamal', 'Lena', 'Carlos', 'Hiro', 'Nia', 'Pedro', 'Leah', 'Ahmed',
  'Sara', 'Luca', 'Mila', 'Ola', 'Rania', 'Sven', 'Talia', 'Yusuf', 'Alma', 'Dario', 'Eva', 'Gabriel', 'Hilde', 'Idris', 'Jana',
  'Kira', 'Lionel', 'Mina', 'Nils', 'Otto', 'Paula', 'Quinn', 'Rohan', 'Signe', 'Theo', 'Uma', 'Vera', 'Wanda', 'Xavier', 'Yasmin',
  'Zoran', 'Bianca', 'Cyrus', 'Dalia', 'Esther', 'Farid', 'Gita', 'Henrik', 'Ilse', 'Joaquin', 'Kamal', 'Lotte',
  'Naomi', 'Orla', 'Piotr', 'Rhea', 'Stefan', 'Tanvi', 'Ulla', 'Wei', 'Xenia', 'Yosef', 'Zain', 'Amir', 'Beatriz', 'Cosmin',
];

/** Every value of each type (before the split cut). */
export const ROUTING_VALUE_POOLS: Readonly<Record<RoutingValueType, readonly string[]>> = { city: CITIES, ticker: TICKERS, word: WORDS, person: PEOPLE };

/** The fixed per-split parts of each value pool. */
export const ROUTING_VALUES: Readonly<Record<RoutingValueType, SplitLists<string>>> = {
  city: partitionPool(CITIES, 'routing/city'),
  ticker: partitionPool(TICKERS, 'routing/ticker'),
  word: partitionPool(WORDS, 'routing/word'),
  person: partitionPool(PEOPLE, 'routing/person'),
};
