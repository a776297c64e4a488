// Word pools the seeded database draws from: people, places and product templates with their
// option spaces. Pure data; the generator in database.ts decides what to take.
// Splits (src/envs/splits.ts): first and last names, cities, streets and product types are cut
// into fixed train / validation / test parts, so a test user (name, email, address) or product
// never occurs in a training database. Email domains, card brands and product option values
// (colors, sizes) are shared: small closed vocabularies, like enum values.
import { partitionPool, type SplitLists } from '../splits';

export const FIRST_NAMES: SplitLists<string> = partitionPool([
  'Mia', 'Noah', 'Olivia', 'Liam', 'Emma', 'Ethan', 'Ava', 'Lucas', 'Sofia', 'Mason',
  'Isabella', 'Yusuf', 'Amelia', 'Omar', 'Harper', 'Raj', 'Chloe', 'Mei', 'Daniel', 'Aisha',
  'Fatima', 'Ivan', 'Lena', 'Mateo', 'Nora', 'Hiro', 'Zoe', 'Arjun', 'Grace', 'Leo',
  'Priya', 'Jonas', 'Elena', 'Kwame', 'Ingrid', 'Tariq', 'Camila', 'Felix', 'Yara', 'Dmitri',
], 'service/first-name');

export const LAST_NAMES: SplitLists<string> = partitionPool([
  'Lopez', 'Smith', 'Nguyen', 'Garcia', 'Kim', 'Patel', 'Johnson', 'Brown', 'Rossi', 'Silva',
  'Khan', 'Muller', 'Santos', 'Ito', 'Davis', 'Wilson', 'Ahmed', 'Moreau', 'Novak', 'Chen',
  'Taylor', 'Anderson', 'Thomas', 'Hernandez', 'Moore', 'Martin', 'Lee', 'Clark', 'Lewis', 'Young',
  'Okafor', 'Larsen', 'Costa', 'Yamamoto', 'Kowalski', 'Haddad', 'Fischer', 'Reyes', 'Dubois', 'Singh',
], 'service/last-name');

export const EMAIL_DOMAINS = ['example.com', 'mail.com', 'inbox.net', 'post.org'] as const;

export const STREETS: SplitLists<string> = partitionPool([
  'Oak Street', 'Maple Avenue', 'Cedar Lane', 'Pine Road', 'Elm Street', 'Lakeview Drive',
  'Hillcrest Road', 'River Road', 'Sunset Boulevard', 'Park Avenue', 'Willow Way', 'Main Street',
  'Birch Court', 'Harbor View', 'Meadow Lane', 'Chestnut Street', 'Spring Garden Road', 'Orchard Way', 'Ridge Avenue', 'Mill Street',
], 'service/street');

/** A city, its state and the first two digits of its zip codes. */
export interface Place {
  city: string;
  state: string;
  zipPrefix: string;
}

/** Cities with their state and zip prefix. */
export const CITIES: SplitLists<Place> = partitionPool<Place>([
  { city: 'Austin', state: 'TX', zipPrefix: '78' },
  { city: 'Denver', state: 'CO', zipPrefix: '80' },
  { city: 'Seattle', state: 'WA', zipPrefix: '98' },
  { city: 'Boston', state: 'MA', zipPrefix: '02' },
  { city: 'Chicago', state: 'IL', zipPrefix: '60' },
  { city: 'Phoenix', state: 'AZ', zipPrefix: '85' },
  { city: 'Portland', state: 'OR', zipPrefix: '97' },
  { city: 'San Diego', state: 'CA', zipPrefix: '92' },
  { city: 'Columbus', state: 'OH', zipPrefix: '43' },
  { city: 'Atlanta', state: 'GA', zipPrefix: '30' },
  { city: 'Miami', state: 'FL', zipPrefix: '33' },
  { city: 'Nashville', state: 'TN', zipPrefix: '37' },
  { city: 'Minneapolis', state: 'MN', zipPrefix: '55' },
  { city: 'Salt Lake City', state: 'UT', zipPrefix: '84' },
  { city: 'Kansas City', state: 'MO', zipPrefix: '64' },
  { city: 'Pittsburgh', state: 'PA', zipPrefix: '15' },
  { city: 'Raleigh', state: 'NC', zipPrefix: '27' },
  { city: 'Albuquerque', state: 'NM', zipPrefix: '87' },
  { city: 'Madison', state: 'WI', zipPrefix: '53' },
  { city: 'Boise', state: 'ID', zipPrefix: '83' },
], 'service/city', (c) => c.city);

export const CARD_BRANDS = ['visa', 'mastercard', 'amex'] as const;

/** A product type: its name, price range in dollars, and option names with their possible values. */
export interface ProductTemplate {
  /** Display name, unique in the catalog. */
  name: string;
  /** Lowest and highest variant price in dollars. */
  priceRange: [number, number];
  /** Option name → possible values (every variant picks one value per option). */
  options: Record<string, readonly string[]>;
}

/** Product types per split: a test database sells only product types no training database has. */
export const PRODUCT_TEMPLATES: SplitLists<ProductTemplate> = {
  train: [
    { name: 'T-Shirt', priceRange: [12, 40], options: { color: ['red', 'blue', 'black', 'white', 'green'], size: ['S', 'M', 'L', 'XL'] } },
    { name: 'Running Shoes', priceRange: [60, 180], options: { color: ['black', 'white', 'grey', 'orange'], size: ['8', '9', '10', '11', '12'] } },
    { name: 'Backpack', priceRange: [30, 140], options: { color: ['black', 'navy', 'olive', 'grey'], capacity: ['20L', '30L', '40L'] } },
    { name: 'Water Bottle', priceRange: [10, 45], options: { capacity: ['500ml', '750ml', '1000ml'], material: ['steel', 'glass', 'plastic'] } },
    { name: 'Desk Lamp', priceRange: [25, 120], options: { color: ['white', 'black', 'silver'], power: ['battery', 'usb', 'ac adapter'] } },
    { name: 'Headphones', priceRange: [40, 350], options: { type: ['over-ear', 'on-ear', 'in-ear'], connectivity: ['wired', 'wireless'], color: ['black', 'white', 'blue'] } },
    { name: 'Jacket', priceRange: [60, 260], options: { size: ['S', 'M', 'L', 'XL'], color: ['black', 'navy', 'red', 'khaki'] } },
    { name: 'Wristwatch', priceRange: [80, 600], options: { strap: ['leather', 'metal', 'silicone'], dial: ['black', 'white', 'blue'] } },
    { name: 'Mechanical Keyboard', priceRange: [50, 230], options: { switch: ['linear', 'tactile', 'clicky'], layout: ['full', 'tkl', '60%'] } },
    { name: 'Coffee Maker', priceRange: [35, 300], options: { capacity: ['4 cups', '8 cups', '12 cups'], type: ['drip', 'espresso', 'french press'] } },
    { name: 'Yoga Mat', priceRange: [18, 90], options: { thickness: ['4mm', '6mm', '8mm'], color: ['purple', 'green', 'blue', 'pink'] } },
    { name: 'Sunglasses', priceRange: [25, 220], options: { frame: ['black', 'tortoise', 'gold'], lens: ['polarized', 'non-polarized'] } },
    { name: 'Office Chair', priceRange: [90, 480], options: { material: ['mesh', 'leather', 'fabric'], color: ['black', 'grey', 'blue'] } },
    { name: 'Tablet', priceRange: [150, 900], options: { storage: ['64GB', '128GB', '256GB'], color: ['silver', 'space grey', 'gold'] } },
    { name: 'Hiking Boots', priceRange: [70, 240], options: { size: ['8', '9', '10', '11'], material: ['leather', 'synthetic'], lining: ['insulated', 'unlined'] } },
    { name: 'Bluetooth Speaker', priceRange: [30, 250], options: { color: ['black', 'red', 'teal'], battery: ['10h', '20h'] } },
  ],
  validation: [
    { name: 'Wool Scarf', priceRange: [15, 80], options: { color: ['grey', 'burgundy', 'cream', 'navy'], length: ['150cm', '180cm'] } },
    { name: 'Baseball Cap', priceRange: [12, 45], options: { color: ['black', 'white', 'red', 'navy'], fit: ['adjustable', 'fitted'] } },
    { name: 'Leather Wallet', priceRange: [25, 150], options: { color: ['brown', 'black', 'tan'], style: ['bifold', 'trifold', 'card holder'] } },
    { name: 'Phone Case', priceRange: [10, 60], options: { model: ['small', 'standard', 'max'], color: ['clear', 'black', 'pink', 'green'] } },
    { name: 'Travel Mug', priceRange: [12, 50], options: { capacity: ['350ml', '470ml'], color: ['steel', 'black', 'mint'] } },
    { name: 'Chef Knife', priceRange: [30, 220], options: { blade: ['15cm', '20cm', '25cm'], handle: ['wood', 'resin', 'steel'] } },
    { name: 'Bath Towel', priceRange: [10, 55], options: { color: ['white', 'sand', 'sage', 'slate'], size: ['standard', 'large'] } },
    { name: 'Wireless Mouse', priceRange: [15, 120], options: { color: ['black', 'white', 'graphite'], grip: ['ergonomic', 'ambidextrous'] } },
    { name: 'Camping Tent', priceRange: [80, 450], options: { capacity: ['2-person', '3-person', '4-person'], season: ['3-season', '4-season'] } },
    { name: 'Tennis Racket', priceRange: [40, 260], options: { weight: ['280g', '300g', '315g'], grip: ['G2', 'G3', 'G4'] } },
  ],
  test: [
    { name: 'Hoodie', priceRange: [25, 90], options: { size: ['S', 'M', 'L', 'XL'], color: ['grey', 'black', 'forest', 'maroon'] } },
    { name: 'Denim Jeans', priceRange: [35, 160], options: { waist: ['30', '32', '34', '36'], fit: ['slim', 'straight', 'relaxed'] } },
    { name: 'Umbrella', priceRange: [12, 70], options: { size: ['compact', 'full'], color: ['black', 'yellow', 'navy'] } },
    { name: 'Laptop Sleeve', priceRange: [18, 75], options: { size: ['13-inch', '14-inch', '16-inch'], color: ['grey', 'black', 'blue'] } },
    { name: 'Cutting Board', priceRange: [15, 90], options: { material: ['bamboo', 'walnut', 'plastic'], size: ['small', 'medium', 'large'] } },
    { name: 'Bed Sheets', priceRange: [30, 200], options: { size: ['twin', 'queen', 'king'], fabric: ['cotton', 'linen', 'bamboo'] } },
    { name: 'USB Charger', priceRange: [12, 80], options: { ports: ['1', '2', '4'], power: ['20W', '45W', '65W'] } },
    { name: 'Sleeping Bag', priceRange: [40, 280], options: { rating: ['0C', '-5C', '-10C'], shape: ['mummy', 'rectangular'] } },
    { name: 'Bicycle Helmet', priceRange: [35, 200], options: { size: ['S', 'M', 'L'], color: ['white', 'black', 'orange'] } },
    { name: 'Fitness Tracker', priceRange: [40, 250], options: { band: ['silicone', 'fabric', 'metal'], color: ['black', 'rose', 'blue'] } },
  ],
};
