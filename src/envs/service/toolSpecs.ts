// OpenAI-style JSON-schema specs of the retail tools, in the order the agent sees them.

import type { JsonSchema, ToolSpec } from '../types';
import { CANCEL_REASONS } from './types';

function tool(name: string, description: string, properties: Record<string, JsonSchema>, required: string[]): ToolSpec {
  return { type: 'function', function: { name, description, parameters: { type: 'object', properties, required, additionalProperties: false } } };
}

const orderId: JsonSchema = { type: 'string', description: "The order id, starting with '#', e.g. '#W0000000'." };
const itemIds = (what: string): JsonSchema => ({ type: 'array', items: { type: 'string' }, description: what });
const paymentMethodId: JsonSchema = {
  type: 'string',
  description: "A payment method id of the user from get_user_details, e.g. 'credit_card_0000000', 'paypal_0000000', 'gift_card_0000000'.",
};

export const SERVICE_TOOL_SPECS: readonly ToolSpec[] = [
  tool(
    'find_user_id_by_email',
    'Find a user id by email. Use it to authenticate a user who gave their email.',
    { email: { type: 'string', description: "The user's email, e.g. 'mia.lopez12@example.com'." } },
    ['email'],
  ),
  tool(
    'find_user_id_by_name_zip',
    'Find a user id by first name, last name and zip code. Use it to authenticate a user who does not give an email.',
    {
      first_name: { type: 'string', description: "The user's first name, e.g. 'Mia'." },
      last_name: { type: 'string', description: "The user's last name, e.g. 'Lopez'." },
      zip: { type: 'string', description: "The user's zip code, e.g. '78701'." },
    },
    ['first_name', 'last_name', 'zip'],
  ),
  tool(
    'get_user_details',
    "Get a user's details: name, email, address, payment methods and order ids.",
    { user_id: { type: 'string', description: "The user id, e.g. 'mia_lopez_1234'." } },
    ['user_id'],
  ),
  tool('get_order_details', "Get an order's status, items, address and payment history.", { order_id: orderId }, ['order_id']),
  tool(
    'get_product_details',
    'Get a product and all its variants (item ids, options, availability, price).',
    { product_id: { type: 'string', description: "The product id, e.g. '6086499569'." } },
    ['product_id'],
  ),
  tool(
    'cancel_pending_order',
    'Cancel a pending order and refund its payments to the original methods. Only for status "pending". Ask the user for explicit confirmation (yes) first.',
    { order_id: orderId, reason: { type: 'string', enum: [...CANCEL_REASONS], description: "Why the user cancels: 'no longer needed' or 'ordered by mistake'." } },
    ['order_id', 'reason'],
  ),
  tool(
    'modify_pending_order_address',
    'Change the shipping address of a pending order. Ask the user for explicit confirmation (yes) first.',
    {
      order_id: orderId,
      address1: { type: 'string', description: "Street line, e.g. '123 Main Street'." },
      address2: { type: 'string', description: "Apartment or suite, e.g. 'Suite 250'; empty string if none." },
      city: { type: 'string', description: "City, e.g. 'Austin'." },
      state: { type: 'string', description: "Two-letter state code, e.g. 'TX'." },
      country: { type: 'string', description: "Country, e.g. 'USA'." },
      zip: { type: 'string', description: "Zip code, e.g. '78701'." },
    },
    ['order_id', 'address1', 'address2', 'city', 'state', 'country', 'zip'],
  ),
  tool(
    'modify_pending_order_items',
    'Swap items of a pending order for other available variants of the same products; the price difference is charged or refunded to the payment method. Ask the user for explicit confirmation (yes) first.',
    {
      order_id: orderId,
      item_ids: itemIds('Item ids in the order to replace, e.g. [\'1008292230\'].'),
      new_item_ids: itemIds('New item ids, one per replaced item, same product, in the same order as item_ids.'),
      payment_method_id: paymentMethodId,
    },
    ['order_id', 'item_ids', 'new_item_ids', 'payment_method_id'],
  ),
  tool(
    'return_delivered_order_items',
    'Request a return of items of a delivered order; the refund goes to the original payment method or a gift card of the user. Ask the user for explicit confirmation (yes) first.',
    { order_id: orderId, item_ids: itemIds('Item ids in the order to return.'), payment_method_id: paymentMethodId },
    ['order_id', 'item_ids', 'payment_method_id'],
  ),
  tool(
    'exchange_delivered_order_items',
    'Request an exchange of items of a delivered order for other available variants of the same products; the price difference is paid or refunded with the payment method. Ask the user for explicit confirmation (yes) first.',
    {
      order_id: orderId,
      item_ids: itemIds('Item ids in the order to exchange.'),
      new_item_ids: itemIds('New item ids, one per exchanged item, same product, in the same order as item_ids.'),
      payment_method_id: paymentMethodId,
    },
    ['order_id', 'item_ids', 'new_item_ids', 'payment_method_id'],
  ),
  tool(
    'transfer_to_human_agents',
    'Transfer the user to a human agent, with a summary of the issue. Only when the request cannot be handled under the policy or the user asks for a human. Ends the conversation.',
    { summary: { type: 'string', description: "A short summary of the user's issue." } },
    ['summary'],
  ),
];

/** Spec by tool name. */
export const SERVICE_TOOLS_BY_NAME: ReadonlyMap<string, ToolSpec> = new Map(SERVICE_TOOL_SPECS.map((t) => [t.function.name, t]));

/**
 * The status level's read tool (levels.ts): an order's id and status only, so a status lookup does
 * not read a whole order (≈ 20 instead of ≈ 210 tokens). Not offered at the retail level.
 */
export const ORDER_STATUS_TOOL: ToolSpec = tool('get_order_status', "Get an order's status.", { order_id: orderId }, ['order_id']);

/** Every service tool by name, whichever level offers it (the executor's table). */
export const ALL_SERVICE_TOOLS_BY_NAME: ReadonlyMap<string, ToolSpec> = new Map([...SERVICE_TOOL_SPECS, ORDER_STATUS_TOOL].map((t) => [t.function.name, t]));
