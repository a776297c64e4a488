// Finance APIs: stock quotes, currency conversion, loan payments, compound interest, tips.
import { CURRENCIES, maybe, phrase, round, splitAmount, splitInt, STOCKS } from './pools';
import { ScenarioBuilder, tool, type CatalogueFunction } from './types';

const getStockPrice: CatalogueFunction = {
  domain: 'finance',
  tool: tool(
    'get_stock_price',
    'Get the latest trading price of a stock.',
    {
      symbol: { type: 'string', description: "Ticker symbol, e.g. 'AAPL'." },
      exchange: { type: 'string', enum: ['NASDAQ', 'NYSE', 'LSE'], description: 'Stock exchange.', default: 'NASDAQ' },
    },
    ['symbol'],
  ),
  sample(rng, split) {
    const stock = rng.pick(STOCKS[split]);
    const exchange = maybe(rng, () => stock.exchange);
    const extras = exchange === null ? '' : ` on the ${exchange}`;
    const request = phrase(rng, split, [
      'What is {company} ({sym}) trading at{extras} right now?',
      'Get the latest share price of {sym}{extras}.',
      'How much does one {sym} share cost{extras}?',
      'Look up the current stock price for {company}, ticker {sym}{extras}.',
      'Quote me the price of {company} stock ({sym}){extras}.',
    ], { company: stock.company, sym: stock.symbol, extras });
    return new ScenarioBuilder().required('symbol', stock.symbol).optional('exchange', exchange, 'NASDAQ').done(request);
  },
  simulate(args, rng) {
    return { symbol: args.symbol, price: round(rng.uniform(10, 900)), currency: args.exchange === 'LSE' ? 'GBP' : 'USD', change_percent: round(rng.uniform(-4, 4)) };
  },
};

const convertCurrency: CatalogueFunction = {
  domain: 'finance',
  tool: tool(
    'convert_currency',
    'Convert an amount of money between currencies at the current rate.',
    {
      amount: { type: 'number', description: 'Amount to convert.' },
      from_currency: { type: 'string', description: "Three-letter ISO 4217 code, e.g. 'USD'." },
      to_currency: { type: 'string', description: "Three-letter ISO 4217 code, e.g. 'EUR'." },
    },
    ['amount', 'from_currency', 'to_currency'],
  ),
  sample(rng, split) {
    const [from, to] = rng.shuffle(CURRENCIES[split]).slice(0, 2);
    const amount = rng.next() < 0.6 ? splitInt(rng, split, 5, 5000) : splitAmount(rng, split, 1, 999);
    const useCodes = rng.next() < 0.5;
    const request = phrase(rng, split, ['Convert {amount} {from} to {to}.', 'How much is {amount} {from} in {to}?', 'What do {amount} {from} come to in {to}?', 'Please change {amount} {from} into {to}.', 'Exchange {amount} {from} for {to} at today\'s rate.'], {
      amount,
      from: useCodes ? from.code : from.name,
      to: useCodes ? to.code : to.name,
    });
    return new ScenarioBuilder()
      .required('amount', amount)
      .required('from_currency', from.code, [from.code, from.name])
      .required('to_currency', to.code, [to.code, to.name])
      .done(request);
  },
  simulate(args, rng) {
    const rate = round(rng.uniform(0.005, 2.5), 4);
    return { amount: args.amount, from: args.from_currency, to: args.to_currency, rate, converted: round(Number(args.amount) * rate) };
  },
};

const calculateLoanPayment: CatalogueFunction = {
  domain: 'finance',
  tool: tool(
    'calculate_loan_payment',
    'Calculate the periodic payment of an amortised loan.',
    {
      principal: { type: 'number', description: 'Amount borrowed.' },
      annual_rate_percent: { type: 'number', description: 'Annual interest rate in percent, e.g. 5.5.' },
      years: { type: 'integer', description: 'Loan term in years.' },
      payments_per_year: { type: 'integer', description: 'Payments per year.', default: 12 },
    },
    ['principal', 'annual_rate_percent', 'years'],
  ),
  sample(rng, split) {
    const principal = splitInt(rng, split, 5, 500) * 1000;
    const rate = round(rng.pick([3, 3.5, 4.25, 5, 5.75, 6.5, 7.2]), 2);
    const years = rng.pick([5, 10, 15, 20, 25, 30]);
    const perYear = maybe(rng, () => rng.pick([4, 26, 52]));
    const extras = perYear === null ? '' : ` with ${perYear} payments a year`;
    const request = phrase(rng, split, [
      'What would my payment be on a {p} loan at {r}% over {y} years{extras}?',
      'Calculate the payment for borrowing {p} at {r}% annual interest for {y} years{extras}.',
      'How much is each installment on {p} borrowed at {r}% for {y} years{extras}?',
      'Work out the loan repayment for {p} at {r}% interest over {y} years{extras}.',
      'If I borrow {p} at {r}% for {y} years, what are the payments{extras}?',
    ], { p: principal, r: rate, y: years, extras });
    return new ScenarioBuilder()
      .required('principal', principal)
      .required('annual_rate_percent', rate)
      .required('years', years)
      .optional('payments_per_year', perYear, 12)
      .done(request);
  },
  simulate(args) {
    const n = Number(args.years) * Number(args.payments_per_year ?? 12);
    const r = Number(args.annual_rate_percent) / 100 / Number(args.payments_per_year ?? 12);
    const p = Number(args.principal);
    const payment = r === 0 ? p / Math.max(1, n) : (p * r) / (1 - (1 + r) ** -n);
    return { payment: round(payment), number_of_payments: n, total_paid: round(payment * n) };
  },
};

const calculateCompoundInterest: CatalogueFunction = {
  domain: 'finance',
  tool: tool(
    'calculate_compound_interest',
    'Compute the future value of an investment with compound interest.',
    {
      principal: { type: 'number', description: 'Initial investment.' },
      rate_percent: { type: 'number', description: 'Annual interest rate in percent.' },
      years: { type: 'integer', description: 'Number of years.' },
      compounds_per_year: { type: 'integer', description: 'Compounding periods per year.', default: 1 },
    },
    ['principal', 'rate_percent', 'years'],
  ),
  sample(rng, split) {
    const principal = splitInt(rng, split, 1, 100) * 500;
    const rate = rng.pick([2, 3, 4.5, 5, 6, 8]);
    const years = rng.int(2, 40);
    const compounds = maybe(rng, () => rng.pick([4, 12, 365]));
    const extras = compounds === null ? '' : ` compounded ${compounds === 4 ? 'quarterly' : compounds === 12 ? 'monthly' : 'daily'}`;
    const request = phrase(rng, split, [
      'How much will {p} grow to in {y} years at {r}% interest{extras}?',
      'Calculate the compound interest on {p} at {r}% for {y} years{extras}.',
      'What is {p} worth after {y} years invested at {r}%{extras}?',
      'Project the value of {p} saved for {y} years at {r}% interest{extras}.',
      'If I invest {p} at {r}% for {y} years, how much will I have{extras}?',
    ], { p: principal, r: rate, y: years, extras });
    return new ScenarioBuilder()
      .required('principal', principal)
      .required('rate_percent', rate)
      .required('years', years)
      .optional('compounds_per_year', compounds, 1)
      .done(request);
  },
  simulate(args) {
    const k = Number(args.compounds_per_year ?? 1);
    const value = Number(args.principal) * (1 + Number(args.rate_percent) / 100 / k) ** (k * Number(args.years));
    return { future_value: round(value), interest_earned: round(value - Number(args.principal)) };
  },
};

const calculateTip: CatalogueFunction = {
  domain: 'finance',
  tool: tool(
    'calculate_tip',
    'Calculate the tip and per-person share of a bill.',
    {
      bill_amount: { type: 'number', description: 'Total bill before tip.' },
      tip_percent: { type: 'number', description: 'Tip percentage.', default: 15 },
      people: { type: 'integer', description: 'Number of people splitting the bill.', default: 1 },
    },
    ['bill_amount'],
  ),
  sample(rng, split) {
    const bill = splitAmount(rng, split, 12, 400);
    const tip = maybe(rng, () => rng.pick([10, 18, 20, 22.5, 25]));
    const people = maybe(rng, () => rng.int(2, 8));
    const extras = [tip === null ? '' : ` with a ${tip}% tip`, people === null ? '' : ` split between ${people} people`].join('');
    const request = phrase(rng, split, ['Work out the tip on a {bill} bill{extras}.', 'How much should we tip on {bill}{extras}?', 'What tip do I leave on a {bill} check{extras}?', 'Calculate the tip for a bill of {bill}{extras}.', 'Figure out the gratuity on {bill}{extras}.'], {
      bill,
      extras,
    });
    return new ScenarioBuilder().required('bill_amount', bill).optional('tip_percent', tip, 15).optional('people', people, 1).done(request);
  },
  simulate(args) {
    const tip = (Number(args.bill_amount) * Number(args.tip_percent ?? 15)) / 100;
    const people = Math.max(1, Number(args.people ?? 1));
    return { tip: round(tip), total: round(Number(args.bill_amount) + tip), per_person: round((Number(args.bill_amount) + tip) / people) };
  },
};

export const FINANCE_FUNCTIONS: readonly CatalogueFunction[] = [getStockPrice, convertCurrency, calculateLoanPayment, calculateCompoundInterest, calculateTip];
