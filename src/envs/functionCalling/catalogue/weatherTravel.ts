// Weather and travel APIs: current weather, forecast, flights, hotels, distances, local time.
import { ALL_CITIES, CITIES, cityAccepted, maybe, phrase, round, sampleDate } from './pools';
import { listPhrase, permutations, ScenarioBuilder, tool, type CatalogueFunction } from './types';

const CONDITIONS = ['sunny', 'partly cloudy', 'overcast', 'light rain', 'heavy rain', 'snow', 'fog', 'thunderstorms'];
const AMENITIES = ['wifi', 'breakfast', 'pool', 'parking', 'gym'] as const;

const getCurrentWeather: CatalogueFunction = {
  domain: 'weather',
  tool: tool(
    'get_current_weather',
    'Get the current weather conditions for a city.',
    {
      location: { type: 'string', description: "City name, e.g. 'Paris' or 'Paris, France'." },
      unit: { type: 'string', enum: ['celsius', 'fahrenheit'], description: 'Temperature unit.', default: 'celsius' },
    },
    ['location'],
  ),
  sample(rng, split) {
    const city = rng.pick(CITIES[split]);
    const unit = maybe(rng, () => rng.pick(['celsius', 'fahrenheit']));
    const unitText = unit === null ? '' : rng.pick([` in ${unit}`, `, in degrees ${unit}`]);
    const request = phrase(rng, split, [
      "What's the weather like in {loc} right now{unit}?",
      'How warm is it in {loc} at the moment{unit}?',
      'Tell me the current weather in {loc}{unit}.',
      'Give me the weather report for {loc}{unit}.',
      'Check the current conditions in {loc}{unit}, please.',
      'I would like to know the present weather in {loc}{unit}.',
    ], { loc: city.name, unit: unitText });
    return new ScenarioBuilder().required('location', city.name, cityAccepted(city)).optional('unit', unit, 'celsius').done(request);
  },
  simulate(args, rng) {
    const celsius = round(rng.uniform(-5, 35), 1);
    const unit = args.unit === 'fahrenheit' ? 'fahrenheit' : 'celsius';
    const temperature = unit === 'fahrenheit' ? round(celsius * 1.8 + 32, 1) : celsius;
    return { location: args.location, temperature, unit, condition: rng.pick(CONDITIONS), humidity_percent: rng.int(20, 95), wind_kph: rng.int(0, 45) };
  },
};

const getWeatherForecast: CatalogueFunction = {
  domain: 'weather',
  tool: tool(
    'get_weather_forecast',
    'Get a daily weather forecast for a city.',
    {
      location: { type: 'string', description: 'City name.' },
      days: { type: 'integer', description: 'Number of days to forecast (1-10).', default: 3 },
      include_hourly: { type: 'boolean', description: 'Also return an hourly breakdown.', default: false },
    },
    ['location'],
  ),
  sample(rng, split) {
    const city = rng.pick(CITIES[split]);
    const days = maybe(rng, () => rng.int(2, 10));
    const hourly = maybe(rng, () => true);
    const hourlyText = hourly === null ? '' : rng.pick([' with hourly details', ', including an hourly breakdown']);
    const templates =
      days === null
        ? ["What's the forecast for {loc}{hourly}?", 'Get me the weather forecast for {loc}{hourly}.', 'Forecast the coming weather in {loc}{hourly}.', 'Show the upcoming forecast for {loc}{hourly}.']
        : ['Give me the {days}-day forecast for {loc}{hourly}.', 'What will the weather be in {loc} over the next {days} days{hourly}?', 'Forecast {days} days of weather for {loc}{hourly}.', 'Predict the weather in {loc} for the coming {days} days{hourly}.'];
    const request = phrase(rng, split, templates, { loc: city.name, days: days ?? '', hourly: hourlyText });
    return new ScenarioBuilder()
      .required('location', city.name, cityAccepted(city))
      .optional('days', days, 3)
      .optional('include_hourly', hourly, false)
      .done(request);
  },
  simulate(args, rng) {
    const days = Math.min(10, Math.max(1, Number(args.days ?? 3)));
    const forecast = Array.from({ length: days }, (_, d) => ({ day: d + 1, high_c: rng.int(5, 35), low_c: rng.int(-5, 15), condition: rng.pick(CONDITIONS) }));
    return { location: args.location, forecast, hourly_included: args.include_hourly === true };
  },
};

const searchFlights: CatalogueFunction = {
  domain: 'travel',
  tool: tool(
    'search_flights',
    'Search for flights between two cities on a date.',
    {
      origin: { type: 'string', description: 'Departure city.' },
      destination: { type: 'string', description: 'Arrival city.' },
      date: { type: 'string', description: 'Departure date, YYYY-MM-DD.' },
      passengers: { type: 'integer', description: 'Number of passengers.', default: 1 },
      cabin_class: { type: 'string', enum: ['economy', 'premium_economy', 'business', 'first'], description: 'Cabin class.', default: 'economy' },
      nonstop_only: { type: 'boolean', description: 'Only return nonstop flights.', default: false },
    },
    ['origin', 'destination', 'date'],
  ),
  sample(rng, split) {
    const [from, to] = rng.shuffle(CITIES[split]).slice(0, 2);
    const date = sampleDate(rng, split);
    const passengers = maybe(rng, () => rng.int(2, 5));
    const cabin = maybe(rng, () => rng.pick(['business', 'first', 'premium_economy']));
    const nonstop = maybe(rng, () => true);
    const extras = [
      passengers === null ? '' : ` for ${passengers} passengers`,
      cabin === null ? '' : ` in ${cabin.replace('_', ' ')} class`,
      nonstop === null ? '' : rng.pick([', nonstop only', ' with no layovers']),
    ].join('');
    const request = phrase(rng, split, [
      'Find flights from {from} to {to} on {date}{extras}.',
      'Search for flights departing {from} for {to} on {date}{extras}.',
      'Look up air travel options from {from} to {to} on {date}{extras}.',
      'I need to fly from {from} to {to} on {date}{extras}; what are my options?',
      'Which flights go from {from} to {to} on {date}{extras}?',
    ], { from: from.name, to: to.name, date: date.spoken, extras });
    return new ScenarioBuilder()
      .required('origin', from.name, cityAccepted(from))
      .required('destination', to.name, cityAccepted(to))
      .required('date', date.iso, date.accepted)
      .optional('passengers', passengers, 1)
      .optional('cabin_class', cabin, 'economy')
      .optional('nonstop_only', nonstop, false)
      .done(request);
  },
  simulate(args, rng) {
    const flights = Array.from({ length: rng.int(1, 3) }, () => ({
      flight: `${rng.pick(['AF', 'BA', 'LH', 'JL', 'UA', 'QF'])}${rng.int(100, 999)}`,
      departs: `${String(rng.int(6, 22)).padStart(2, '0')}:${rng.pick(['05', '20', '35', '50'])}`,
      stops: args.nonstop_only === true ? 0 : rng.int(0, 2),
      price_usd: rng.int(120, 1800),
    }));
    return { origin: args.origin, destination: args.destination, date: args.date, flights };
  },
};

const bookHotel: CatalogueFunction = {
  domain: 'travel',
  tool: tool(
    'book_hotel',
    'Book a hotel room in a city.',
    {
      city: { type: 'string', description: 'City of the hotel.' },
      check_in: { type: 'string', description: 'Check-in date, YYYY-MM-DD.' },
      nights: { type: 'integer', description: 'Number of nights.' },
      guests: { type: 'integer', description: 'Number of guests.', default: 1 },
      amenities: { type: 'array', items: { type: 'string', enum: [...AMENITIES] }, description: 'Required amenities.', default: [] },
    },
    ['city', 'check_in', 'nights'],
  ),
  sample(rng, split) {
    const city = rng.pick(CITIES[split]);
    const date = sampleDate(rng, split);
    const nights = rng.int(1, 14);
    const guests = maybe(rng, () => rng.int(2, 4));
    const amenities = maybe(rng, () => rng.shuffle(AMENITIES).slice(0, rng.int(1, 2)));
    const extras = [guests === null ? '' : ` for ${guests} guests`, amenities === null ? '' : ` with ${listPhrase(amenities)}`].join('');
    const request = phrase(rng, split, [
      'Book a hotel in {city} from {date} for {nights} nights{extras}.',
      'Please reserve a room in {city} checking in on {date}, staying {nights} nights{extras}.',
      'Get me a hotel room in {city}, arriving {date}, {nights} nights{extras}.',
      'Can you book me {nights} nights at a hotel in {city} starting {date}{extras}?',
      'Reserve accommodation in {city} for {nights} nights from {date}{extras}.',
    ], { city: city.name, date: date.spoken, nights, extras });
    return new ScenarioBuilder()
      .required('city', city.name, cityAccepted(city))
      .required('check_in', date.iso, date.accepted)
      .required('nights', nights)
      .optional('guests', guests, 1)
      .optional('amenities', amenities, [], amenities === null ? undefined : permutations(amenities))
      .done(request);
  },
  simulate(args, rng) {
    return { confirmation: `HTL-${rng.int(100000, 999999)}`, city: args.city, check_in: args.check_in, nights: args.nights, price_per_night_usd: rng.int(70, 450) };
  },
};

const getDistance: CatalogueFunction = {
  domain: 'travel',
  tool: tool(
    'get_distance',
    'Get the travel distance and time between two places.',
    {
      origin: { type: 'string', description: 'Starting place.' },
      destination: { type: 'string', description: 'End place.' },
      mode: { type: 'string', enum: ['driving', 'walking', 'transit', 'cycling'], description: 'Travel mode.', default: 'driving' },
      unit: { type: 'string', enum: ['km', 'miles'], description: 'Distance unit.', default: 'km' },
    },
    ['origin', 'destination'],
  ),
  sample(rng, split) {
    const [from, to] = rng.shuffle(CITIES[split]).slice(0, 2);
    const mode = maybe(rng, () => rng.pick(['walking', 'transit', 'cycling']));
    const unit = maybe(rng, () => 'miles');
    const extras = [mode === null ? '' : ` by ${mode}`, unit === null ? '' : ' in miles'].join('');
    const request = phrase(rng, split, [
      'How far is it from {from} to {to}{extras}?',
      'What is the distance between {from} and {to}{extras}?',
      'How long is the trip from {from} to {to}{extras}?',
      'Calculate the route distance from {from} to {to}{extras}.',
      'Measure the journey between {from} and {to}{extras}.',
    ], { from: from.name, to: to.name, extras });
    return new ScenarioBuilder()
      .required('origin', from.name, cityAccepted(from))
      .required('destination', to.name, cityAccepted(to))
      .optional('mode', mode, 'driving')
      .optional('unit', unit, 'km')
      .done(request);
  },
  simulate(args, rng) {
    const km = rng.int(50, 12000);
    const distance = args.unit === 'miles' ? round(km / 1.609, 1) : km;
    return { origin: args.origin, destination: args.destination, distance, unit: args.unit ?? 'km', duration_hours: round(km / rng.uniform(40, 90), 1) };
  },
};

const getLocalTime: CatalogueFunction = {
  domain: 'travel',
  tool: tool(
    'get_local_time',
    'Get the current local time in a city.',
    {
      city: { type: 'string', description: 'City name.' },
      format: { type: 'string', enum: ['24h', '12h'], description: 'Clock format.', default: '24h' },
    },
    ['city'],
  ),
  sample(rng, split) {
    const city = rng.pick(CITIES[split]);
    const format = maybe(rng, () => '12h');
    const extras = format === null ? '' : rng.pick([' in 12-hour format', ' (12h clock)']);
    const request = phrase(rng, split, ['What time is it in {city} now{extras}?', 'Tell me the local time in {city}{extras}.', 'What is the clock showing in {city}{extras}?', 'Check the current time in {city}{extras}.', 'Give me the current hour in {city}{extras}.'], {
      city: city.name,
      extras,
    });
    return new ScenarioBuilder().required('city', city.name, cityAccepted(city)).optional('format', format, '24h').done(request);
  },
  simulate(args, rng) {
    const hour = rng.int(0, 23);
    const minute = String(rng.int(0, 59)).padStart(2, '0');
    const time = args.format === '12h' ? `${hour % 12 === 0 ? 12 : hour % 12}:${minute} ${hour < 12 ? 'AM' : 'PM'}` : `${String(hour).padStart(2, '0')}:${minute}`;
    const timezone = ALL_CITIES.find((c) => c.name.toLowerCase() === String(args.city).toLowerCase())?.timezone ?? 'UTC';
    return { city: args.city, time, timezone };
  },
};

export const WEATHER_TRAVEL_FUNCTIONS: readonly CatalogueFunction[] = [getCurrentWeather, getWeatherForecast, searchFlights, bookHotel, getDistance, getLocalTime];
