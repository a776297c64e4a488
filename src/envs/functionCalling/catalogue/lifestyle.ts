// Food, language and general-knowledge APIs: restaurants, recipes, translation, population.
import { partitionPool } from '../../splits';
import { CITIES, cityAccepted, CUISINES, LANGUAGES, maybe, PHRASES, phrase, round, splitInt } from './pools';
import { ScenarioBuilder, tool, type CatalogueFunction } from './types';

export const COUNTRIES = partitionPool(
  ['France', 'Japan', 'Brazil', 'Canada', 'India', 'Kenya', 'Norway', 'Mexico', 'Australia', 'Germany', 'Chile', 'Egypt', 'Vietnam', 'Poland', 'Ghana', 'Portugal', 'Thailand', 'Peru', 'Ireland', 'Morocco'],
  'catalogue/country',
);
export const DISHES = partitionPool(
  ['lasagna', 'pad thai', 'chicken curry', 'ramen', 'paella', 'banana bread', 'falafel', 'mushroom risotto', 'shakshuka', 'pho', 'goulash', 'tacos al pastor', 'moussaka', 'apple pie', 'dal makhani', 'bibimbap'],
  'catalogue/dish',
);
/** Restaurant names of simulated results (results never show test values, so a fixed list of their own). */
const RESTAURANT_NAMES = ['Chez Nous', 'The Golden Fork', 'Little Kitchen', 'Casa Verde', 'Sakura', 'Spice Route', 'Blue Door'];

const findRestaurants: CatalogueFunction = {
  domain: 'food',
  tool: tool(
    'find_restaurants',
    'Find restaurants in a city by cuisine.',
    {
      city: { type: 'string', description: 'City to search in.' },
      cuisine: { type: 'string', description: "Type of food, e.g. 'Italian'." },
      max_price_level: { type: 'integer', description: 'Highest price level, 1 (cheap) to 4 (expensive).' },
      open_now: { type: 'boolean', description: 'Only places open now.', default: false },
    },
    ['city', 'cuisine'],
  ),
  sample(rng, split) {
    const city = rng.pick(CITIES[split]);
    const cuisine = rng.pick(CUISINES[split]);
    const price = maybe(rng, () => rng.int(1, 3));
    const open = maybe(rng, () => true);
    const extras = [price === null ? '' : ` at price level ${price} or below`, open === null ? '' : rng.pick([' that are open now', ', open right now'])].join('');
    const request = phrase(rng, split, [
      'Find {cuisine} restaurants in {city}{extras}.',
      'Where can I eat {cuisine} food in {city}{extras}?',
      'Any good {cuisine} spots to eat in {city}{extras}?',
      'Recommend some {cuisine} places in {city}{extras}.',
      'Search {city} for {cuisine} dining{extras}.',
    ], { cuisine, city: city.name, extras });
    return new ScenarioBuilder()
      .required('city', city.name, cityAccepted(city))
      .required('cuisine', cuisine)
      .optional('max_price_level', price, undefined)
      .optional('open_now', open, false)
      .done(request);
  },
  simulate(args, rng) {
    const results = rng.shuffle(RESTAURANT_NAMES).slice(0, rng.int(1, 3)).map((name) => ({ name, rating: round(rng.uniform(3.5, 4.9), 1), price_level: rng.int(1, Number(args.max_price_level ?? 4)) }));
    return { city: args.city, cuisine: args.cuisine, results };
  },
};

const getRecipe: CatalogueFunction = {
  domain: 'food',
  tool: tool(
    'get_recipe',
    'Get a recipe for a dish.',
    {
      dish: { type: 'string', description: 'Name of the dish.' },
      servings: { type: 'integer', description: 'Number of servings.', default: 4 },
      vegetarian: { type: 'boolean', description: 'Use a vegetarian version.', default: false },
    },
    ['dish'],
  ),
  sample(rng, split) {
    const dish = rng.pick(DISHES[split]);
    const servings = maybe(rng, () => rng.pick([1, 2, 6, 8]));
    const veg = maybe(rng, () => true);
    const extras = [servings === null ? '' : ` for ${servings} people`, veg === null ? '' : ', vegetarian please'].join('');
    const request = phrase(rng, split, ['Give me a recipe for {dish}{extras}.', 'How do I make {dish}{extras}?', 'Show me how to cook {dish}{extras}.', 'Find a {dish} recipe{extras}.', 'What are the steps to prepare {dish}{extras}?'], { dish, extras });
    return new ScenarioBuilder().required('dish', dish).optional('servings', servings, 4).optional('vegetarian', veg, false).done(request);
  },
  simulate(args, rng) {
    return { dish: args.dish, servings: args.servings ?? 4, minutes: rng.int(15, 120), steps: rng.int(4, 12), vegetarian: args.vegetarian === true };
  },
};

const translateText: CatalogueFunction = {
  domain: 'language',
  tool: tool(
    'translate_text',
    'Translate text into another language.',
    {
      text: { type: 'string', description: 'Text to translate.' },
      target_language: { type: 'string', description: "Language to translate into, e.g. 'French'." },
      source_language: { type: 'string', description: "Language of the text, or 'auto' to detect it.", default: 'auto' },
    },
    ['text', 'target_language'],
  ),
  sample(rng, split) {
    const text = rng.pick(PHRASES[split]);
    const target = rng.pick(LANGUAGES[split]);
    const source = maybe(rng, () => 'English');
    const from = source === null ? '' : ' from English';
    const request = phrase(rng, split, ['Translate "{text}"{from} into {lang}.', 'How do you say "{text}" in {lang}{from}?', 'Render "{text}"{from} in {lang}.', 'Please translate "{text}"{from} to {lang}.', 'What is "{text}" in {lang}{from}?'], {
      text,
      lang: target,
      from,
    });
    return new ScenarioBuilder().required('text', text).required('target_language', target).optional('source_language', source, 'auto').done(request);
  },
  simulate(args, rng) {
    return { translation: `[${args.target_language}] ${String(args.text)}`, detected_source: args.source_language ?? 'English', confidence: round(rng.uniform(0.8, 0.99)) };
  },
};

const getPopulation: CatalogueFunction = {
  domain: 'knowledge',
  tool: tool(
    'get_population',
    'Get the population of a country.',
    { country: { type: 'string', description: 'Country name.' }, year: { type: 'integer', description: 'Year of the figure; latest when omitted.' } },
    ['country'],
  ),
  sample(rng, split) {
    const country = rng.pick(COUNTRIES[split]);
    const year = maybe(rng, () => splitInt(rng, split, 1960, 2023));
    const request =
      year === null
        ? phrase(rng, split, ['What is the population of {c}?', 'How many people live in {c}?', 'Look up the current population of {c}.', 'How populous is {c} today?', 'Tell me the number of inhabitants of {c}.'], { c: country })
        : phrase(rng, split, ['What was the population of {c} in {y}?', 'How many people lived in {c} in {y}?', 'Look up the population of {c} for {y}.', 'How populous was {c} in {y}?', 'Tell me the number of inhabitants of {c} in {y}.'], { c: country, y: year });
    return new ScenarioBuilder().required('country', country).optional('year', year, undefined).done(request);
  },
  simulate(args, rng) {
    return { country: args.country, year: args.year ?? 2024, population: rng.int(4_000_000, 1_400_000_000) };
  },
};

export const LIFESTYLE_FUNCTIONS: readonly CatalogueFunction[] = [findRestaurants, getRecipe, translateText, getPopulation];
