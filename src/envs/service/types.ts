// Types of the customer-service (retail, τ-bench-style) family: the database the tools act on,
// the task (the simulated user's goal plus the hidden gold solution) and the write actions.
// Field names in the database are snake_case because tools return them verbatim as JSON.

import type { TaskBase } from '../types';
import type { Split } from '../splits';
import type { ServiceLevel } from './levels';

/** A postal address as stored on users and orders. */
export interface Address {
  /** Street and number, e.g. "12 Oak Street". */
  address1: string;
  /** Apartment / suite; empty string when none. */
  address2: string;
  /** City name. */
  city: string;
  /** Two-letter state code, e.g. "CA". */
  state: string;
  /** Country, always "USA" in the seeded data. */
  country: string;
  /** Five-digit zip code as a string. */
  zip: string;
}

/** One way a user can pay; ids look like "credit_card_4821", "paypal_1183", "gift_card_9020". */
export interface PaymentMethod {
  /** Stable id used by tool arguments. */
  id: string;
  /** Kind of method; a user has at most one PayPal account and one gift card. */
  source: 'credit_card' | 'paypal' | 'gift_card';
  /** Card brand (credit cards only). */
  brand?: string;
  /** Last four digits (credit cards only). */
  last_four?: string;
  /** Remaining balance in dollars (gift cards only). */
  balance?: number;
}

/** A customer account. */
export interface User {
  /** Id like "mia_lopez_4821". */
  user_id: string;
  /** Name used (with the zip) for authentication. */
  name: { first_name: string; last_name: string };
  /** Unique email used for authentication. */
  email: string;
  /** Default shipping address; its zip authenticates with the name. */
  address: Address;
  /** Payment methods keyed by id. */
  payment_methods: Record<string, PaymentMethod>;
  /** Ids of this user's orders, oldest first. */
  orders: string[];
}

/** One purchasable variant of a product (a combination of options). */
export interface Variant {
  /** Numeric string id, unique across the catalog. */
  item_id: string;
  /** Option values, e.g. { color: "red", size: "M" }. */
  options: Record<string, string>;
  /** Whether the variant can be ordered (for modifications and exchanges). */
  available: boolean;
  /** Price in dollars, two decimals. */
  price: number;
}

/** A product type with its variants. */
export interface Product {
  /** Numeric string id. */
  product_id: string;
  /** Display name, unique in one database, e.g. "Desk Lamp". */
  name: string;
  /** Variants keyed by item_id. */
  variants: Record<string, Variant>;
}

/** One line of an order: a specific variant bought at a price. */
export interface OrderItem {
  /** Product display name. */
  name: string;
  /** Product the variant belongs to. */
  product_id: string;
  /** The variant bought; unique within one order. */
  item_id: string;
  /** The variant's options at purchase time. */
  options: Record<string, string>;
  /** Price paid in dollars. */
  price: number;
}

/** A money movement on an order. */
export interface PaymentEntry {
  /** 'payment' takes money from the method, 'refund' gives it back. */
  transaction_type: 'payment' | 'refund';
  /** Amount in dollars, two decimals, positive. */
  amount: number;
  /** Payment method id of the user. */
  payment_method_id: string;
}

/** Life cycle: pending → processed → delivered; pending → cancelled; delivered → return/exchange requested. */
export type OrderStatus = 'pending' | 'processed' | 'delivered' | 'cancelled' | 'return requested' | 'exchange requested';

/** An order with its items and money history; optional fields are set by write actions. */
export interface Order {
  /** Id like "#W1234567". */
  order_id: string;
  /** Owner of the order. */
  user_id: string;
  /** Current status. */
  status: OrderStatus;
  /** Shipping address. */
  address: Address;
  /** Items, sorted by item_id. */
  items: OrderItem[];
  /** Payments and refunds, in time order. */
  payment_history: PaymentEntry[];
  /** Set by cancel_pending_order. */
  cancel_reason?: CancelReason;
  /** Set by return_delivered_order_items: returned item ids, sorted. */
  return_items?: string[];
  /** Set by return_delivered_order_items: where the refund goes. */
  return_payment_method_id?: string;
  /** Set by exchange_delivered_order_items: exchanged item ids, sorted. */
  exchange_items?: string[];
  /** Set by exchange_delivered_order_items: new item ids aligned with exchange_items. */
  exchange_new_items?: string[];
  /** Set by exchange_delivered_order_items: method that pays / receives the difference. */
  exchange_payment_method_id?: string;
  /** Set by exchange_delivered_order_items: Σ new prices − Σ old prices (dollars). */
  exchange_price_difference?: number;
}

/** The whole mutable state of one episode. */
export interface Database {
  /** Users keyed by user_id. */
  users: Record<string, User>;
  /** Orders keyed by order_id. */
  orders: Record<string, Order>;
  /** Products keyed by product_id. */
  products: Record<string, Product>;
}

export const CANCEL_REASONS = ['no longer needed', 'ordered by mistake'] as const;
export type CancelReason = (typeof CANCEL_REASONS)[number];

/** Names of the tools that change the database (the "consequential" actions of the policy). */
export type WriteToolName =
  | 'cancel_pending_order'
  | 'modify_pending_order_address'
  | 'modify_pending_order_items'
  | 'return_delivered_order_items'
  | 'exchange_delivered_order_items';

/** A write tool call with its arguments (gold actions and performed actions alike). */
export interface WriteAction {
  /** Tool name. */
  name: WriteToolName;
  /** Arguments exactly as the tool takes them. */
  arguments: Record<string, unknown>;
}

/** Task categories; 'transfer' is a request the policy forbids (expect refusal or transfer). */
export type ServiceCategory = 'cancel' | 'modify_address' | 'modify_items' | 'return' | 'exchange' | 'info' | 'transfer';

export const SERVICE_CATEGORIES: readonly ServiceCategory[] = [
  'cancel',
  'modify_address',
  'modify_items',
  'return',
  'exchange',
  'info',
  'transfer',
];

/** An item the user wants to act on, as the user describes it (and the hidden ids). */
export interface GoalItem {
  /** Item id in the order. */
  itemId: string;
  /** Product display name. */
  productName: string;
  /** Options of the current variant. */
  options: Record<string, string>;
  /** For swaps / exchanges: the wanted variant of the same product. */
  newItemId?: string;
  /** For swaps / exchanges: options of the wanted variant. */
  newOptions?: Record<string, string>;
}

/** What the simulated user wants; the discriminant decides the gold actions and the wording. */
export type ServiceGoal =
  | { kind: 'cancel'; orderId: string; reason: CancelReason }
  | { kind: 'modify_address'; orderId: string; address: Address }
  | { kind: 'modify_items'; orderId: string; items: GoalItem[]; paymentMethodId: string }
  | { kind: 'return'; orderId: string; items: GoalItem[]; paymentMethodId: string }
  | { kind: 'exchange'; orderId: string; items: GoalItem[]; paymentMethodId: string }
  | { kind: 'info'; orderId: string; question: 'status' | 'total' | 'items' }
  | { kind: 'forbidden_cancel'; orderId: string; reason: CancelReason }
  | { kind: 'forbidden_address'; orderId: string; address: Address }
  | { kind: 'forbidden_exchange'; orderId: string; items: GoalItem[]; wantedProductName: string }
  | { kind: 'out_of_scope'; request: 'change_email' | 'price_match' | 'refund_new_card' };

/** A generated customer-service task. Everything needed to rebuild the episode is in here. */
export interface ServiceTask extends TaskBase {
  family: 'service';
  category: ServiceCategory;
  /** The curriculum level (levels.ts: its policy, tools and request kinds); absent = 'retail'. */
  level?: ServiceLevel;
  /** The split the task belongs to: the simulated user speaks that split's phrasings (absent in hand-built tasks: train's). The database's split is named by dbSeed. */
  split?: Split;
  /** Seed of the episode database (seedDatabase(dbSeed) rebuilds it; its two low bits name the split, database.ts). */
  dbSeed: number;
  /** Seed of the simulated user's wording. */
  userSeed: number;
  /** The simulated user's identity (hidden from the agent until it asks). */
  user: {
    /** Account id the agent should find. */
    userId: string;
    /** Email the user gives when authVia is 'email'. */
    email: string;
    /** First name given when authVia is 'name_zip'. */
    firstName: string;
    /** Last name given when authVia is 'name_zip'. */
    lastName: string;
    /** Zip code given when authVia is 'name_zip'. */
    zip: string;
    /** Which credentials the user offers when asked to identify. */
    authVia: 'email' | 'name_zip';
    /** False: the user does not know the order id and describes the order by a product in it. */
    knowsOrderId: boolean;
    /** How the user refers to the order when knowsOrderId is false (a product only that order has). */
    orderHint: string;
    /** How the user names the payment method of the goal (e.g. "my PayPal account"), when relevant. */
    paymentDescription: string;
  };
  /** The user's goal. */
  goal: ServiceGoal;
  /** Hidden solution: the write actions whose replay on the initial database gives the target database. */
  goldActions: WriteAction[];
  /** Facts the agent must tell the user (matched case-insensitively, ignoring "$" and ","). */
  requiredFacts: string[];
}
