package io.pixquota.bacen.dict;

import java.time.OffsetDateTime;

/**
 * A DICT entry ({@code GetEntryResponse}'s {@code Entry}), and the end-to-end id its lookup was made for: the id of
 * the payment, which {@link DictClient#paymentSettled(String)} later credits. {@link #toString()} shows neither the
 * owner's tax id nor the end-to-end id whole.
 */
public record DictEntry(String key, DictKey.Type keyType, String participant, String branch, String accountNumber,
    String accountType, String ownerType, String ownerTaxIdNumber, String ownerName, OffsetDateTime creationDate,
    OffsetDateTime keyOwnershipDate, String endToEndId) {
  @Override
  public String toString() {
    return "DictEntry{" + keyType + ", participant=" + participant + ", accountType=" + accountType + ", owner="
        + ownerType + ", endToEndId=" + endToEndId.substring(0, 9) + "...}";
  }
}
