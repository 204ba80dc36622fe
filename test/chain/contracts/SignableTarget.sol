// SPDX-License-Identifier: MIT
pragma solidity ^0.8.20;

import {Signable} from "wallet-vault/contracts/Signable.sol";

/// The shipped Signable under test: one function per argument shape, with the signature parameter first, in the middle and last.
contract SignableTarget is Signable {
    struct Item {
        address token;
        uint96 amount;
        bytes data;
    }

    struct Order {
        uint64 id;
        Item item;
        string memo;
    }

    uint256 public lastAmount;
    string public lastMemo;

    constructor(address signer_, bytes32 uniq_) Signable(signer_, uniq_) {}

    /// Signatures accepted, for the tests to see a call went through.
    uint256 public calls;

    function _counted(bytes memory message, Signature calldata sig) private {
        _verify(message, sig);
        calls += 1;
    }

    /// Test hook for signer rotation: anyone may rotate here (the shipped example restricts it to an owner).
    function setSigner(address signer_) external {
        _setSigner(signer_);
    }

    /// Verifies, then reverts past a bound: what Sign's `simulate: true` catches (test/chain/simulation.test.ts).
    function bounded(uint256 amount, Signature calldata sig) external {
        _counted(abi.encode(msg.sig, amount), sig);
        require(amount <= 10, "too much");
        lastAmount = amount;
    }

    function mint(address to, uint256 amount, Signature calldata sig) external {
        _counted(abi.encode(msg.sig, to, amount), sig);
        lastAmount = amount;
    }

    function first(Signature calldata sig, uint8 a, int256 b, bool c) external {
        _counted(abi.encode(msg.sig, a, b, c), sig);
    }

    function middle(bytes32 a, Signature calldata sig, string calldata memo, bytes calldata blob) external {
        _counted(abi.encode(msg.sig, a, memo, blob), sig);
        lastMemo = memo;
    }

    function small(int8 a, uint24 b, bytes1 c, bytes17 d, int128 e, uint256 f, Signature calldata sig) external {
        _counted(abi.encode(msg.sig, a, b, c, d, e, f), sig);
    }

    function arrays(
        uint256[] calldata xs,
        address[2] calldata pair,
        uint16[][] calldata nested,
        bytes32[2][] calldata grid,
        string[] calldata words,
        Signature calldata sig
    ) external {
        _counted(abi.encode(msg.sig, xs, pair, nested, grid, words), sig);
    }

    function structs(Order calldata order, Item[] calldata items, Signature calldata sig) external {
        _counted(abi.encode(msg.sig, order, items), sig);
    }

    function pay(uint256 expected, Signature calldata sig) external payable {
        require(msg.value == expected, "wrong value");
        _counted(abi.encode(msg.sig, expected), sig);
    }
}
