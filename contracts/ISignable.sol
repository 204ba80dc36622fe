// SPDX-License-Identifier: Apache-2.0
pragma solidity ^0.8.20;

/// The on-chain half of wallet-vault's signing scheme (docs/signing.md).
///
/// On a chain with an RPC the vault reads `uniq()` and `signer()` from the contract before it signs;
/// the signed call passes a `Signature` as one of its arguments.
interface ISignable {
    /// What the vault appends to a call's arguments: the nonce it chose and the recoverable signature.
    struct Signature {
        bytes32 nonce;
        bytes32 r;
        bytes32 s;
        uint8 v;
    }

    /// A signature was accepted for the function `selector`; `submissionHash` is the value the vault
    /// returned for it (keccak256(abi.encode(nonce, r, s, v))).
    event Verified(bytes4 selector, bytes32 submissionHash);

    /// The signer changed (a vault wallet rotated).
    event SignerChanged(address indexed previous, address indexed next);

    /// The value that binds a signature to this contract: part of every signed digest.
    function uniq() external view returns (bytes32);

    /// The vault wallet whose signatures this contract accepts.
    function signer() external view returns (address);

    /// Whether a signature (by its submission hash) was already used: each is accepted once.
    function used(bytes32 submissionHash) external view returns (bool);
}
