import tenancy from "./0001_tenancy.js"
import schema from "./0002_schema.js"
import outbox from "./0003_outbox.js"
import catalog from "./0004_catalog.js"
import modifiers from "./0008_modifiers.js"
import contentPages from "./0009_content_pages.js"
import variants from "./0010_variants.js"
import productLinks from "./0011_product_links.js"
import media from "./0012_media.js"
import outboxClaims from "./0014_outbox_claims.js"
import facetMultiLinks from "./0015_facet_multi_links.js"
import dropSearchVector from "./0016_drop_search_vector.js"
import facetLinkColumns from "./0017_facet_link_columns.js"
import eventsByOrganization from "./0018_events_by_organization.js"
import tenantProductsView from "./0019_tenant_products_view.js"
import eventsTransaction from "./0020_events_transaction.js"
import variantAxisDigest from "./0021_variant_axis_digest.js"
import nameKeys from "./0022_name_keys.js"
import composedTags from "./0023_composed_tags.js"
import codePointOrder from "./0024_code_point_order.js"
import spacingNameKeys from "./0025_spacing_name_keys.js"
import listOrders from "./0026_list_orders.js"
import symbolMarksRichText from "./0027_symbol_marks_rich_text.js"
import foldedNameKeys from "./0028_folded_name_keys.js"
import nameText from "./0029_name_text.js"
import searchTextWords from "./0030_search_text_words.js"
import plainLetters from "./0031_plain_letters.js"
import auditActions from "./0032_audit_actions.js"
import webhookQueue from "./0033_webhook_queue.js"
import tenantForeignKeys from "./0034_tenant_foreign_keys.js"
import zeroWidthSpaceNameKeys from "./0035_zero_width_space_name_keys.js"
import richTextBrackets from "./0036_rich_text_brackets.js"
import usersReadOnly from "./0037_users_read_only.js"
import linkAndPageOrders from "./0038_link_and_page_orders.js"
import canonicalAxisKeys from "./0039_canonical_axis_keys.js"

/** Every migration, by id. Ids only grow; a shipped migration is never edited. */
export const migrations = {
  "1_tenancy": tenancy,
  "2_schema": schema,
  "3_outbox": outbox,
  "4_catalog": catalog,
  "8_modifiers": modifiers,
  "9_content_pages": contentPages,
  "10_variants": variants,
  "11_product_links": productLinks,
  "12_media": media,
  "14_outbox_claims": outboxClaims,
  "15_facet_multi_links": facetMultiLinks,
  "16_drop_search_vector": dropSearchVector,
  "17_facet_link_columns": facetLinkColumns,
  "18_events_by_organization": eventsByOrganization,
  "19_tenant_products_view": tenantProductsView,
  "20_events_transaction": eventsTransaction,
  "21_variant_axis_digest": variantAxisDigest,
  "22_name_keys": nameKeys,
  "23_composed_tags": composedTags,
  "24_code_point_order": codePointOrder,
  "25_spacing_name_keys": spacingNameKeys,
  "26_list_orders": listOrders,
  "27_symbol_marks_rich_text": symbolMarksRichText,
  "28_folded_name_keys": foldedNameKeys,
  "29_name_text": nameText,
  "30_search_text_words": searchTextWords,
  "31_plain_letters": plainLetters,
  "32_audit_actions": auditActions,
  "33_webhook_queue": webhookQueue,
  "34_tenant_foreign_keys": tenantForeignKeys,
  "35_zero_width_space_name_keys": zeroWidthSpaceNameKeys,
  "36_rich_text_brackets": richTextBrackets,
  "37_users_read_only": usersReadOnly,
  "38_link_and_page_orders": linkAndPageOrders,
  "39_canonical_axis_keys": canonicalAxisKeys
}
