// Word pools the seeded database draws from: people, places and product templates with their
// option spaces. Pure data; the generator in database.ts decides what to take.

export const FIRST_NAMES = [
  'Mia', 'Noah', 'Olivia', 'Liam', 'Emma', 'Ethan', 'Ava', 'Lucas', 'Sofia', 'Mason',
  'Isabella', 'Yusuf', 'Amelia', 'Omar', 'Harper', 'Raj', 'Chloe', 'Mei', 'Daniel', 'Aisha',
  'Fatima', 'Ivan', 'Lena', 'Mateo', 'Nora', 'Hiro', 'Zoe', 'Arjun', 'Grace', 'Leo',
] as const;

export const LAST_NAMES = [
  'Lopez', 'Smith', 'Nguyen', 'Garcia', 'Kim', 'Patel', 'Johnson', 'Brown', 'Rossi', 'Silva',
  'Khan', 'Muller', 'Santos', 'Ito', 'Davis', 'Wilson', 'Ahmed', 'Moreau', 'Novak', 'Chen',
  'Taylor', 'Anderson', 'Thomas', 'Hernandez', 'Moore', 'Martin', 'Lee', 'Clark', 'Lewis', 'Young',
] as const;

export const EMAIL_DOMAINS = ['example.com', 'mail.com', 'inbox.net', 'post.org'] as const;

export const STREETS = [
  'Oak Street', 'Maple Avenue', 'Cedar Lane', 'Pine Road', 'Elm Street', 'Lakeview Drive',
  'Hillcrest Road', 'River Road', 'Sunset Boulevard', 'Park Avenue', 'Willow Way', 'Main Street',
] as const;

/** City, state and the first two digits of its zip codes. */
export const CITIES = [
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
] as const;

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

export const PRODUCT_TEMPLATES: readonly ProductTemplate[] = [
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
];
